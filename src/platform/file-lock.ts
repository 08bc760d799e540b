import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

/**
 * A lock between processes on one machine: a file created exclusively, holding the holder's pid. A lock whose
 * holder died (SIGKILL) is taken over, so a killed process never blocks the next one.
 */
export class FileLock {
  private constructor(private readonly file: string) {}

  static async acquire(file: string, waitMs: number): Promise<FileLock> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      try {
        const fd = openSync(file, 'wx', 0o600);
        writeFileSync(fd, String(process.pid));
        closeSync(fd);
        return new FileLock(file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const holder = holderOf(file);
      if (holder !== null && !isAlive(holder)) {
        rmSync(file, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`${file} is held by process ${holder ?? 'unknown'}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  release(): void {
    if (holderOf(this.file) === process.pid) rmSync(this.file, { force: true });
  }
}

function holderOf(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
