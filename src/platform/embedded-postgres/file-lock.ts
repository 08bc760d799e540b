import { closeSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isAlive } from './alive.js';

/**
 * A lock between processes on one machine: a file created exclusively, holding the holder's pid. A lock whose
 * holder died (SIGKILL) is taken over, so a killed process never blocks the next one.
 */
export class FileLock {
  private constructor(private readonly file: string) {}

  static async acquire(file: string, waitMs: number): Promise<FileLock> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      let fd: number;
      try {
        fd = openSync(file, 'wx', 0o600);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        fd = -1;
      }
      if (fd >= 0) {
        try {
          writeFileSync(fd, String(process.pid));
          return new FileLock(file);
        } catch (err) {
          // a full disk: an empty lock file left behind would hold every later process off
          rmSync(file, { force: true });
          throw err;
        } finally {
          closeSync(fd);
        }
      }
      const holder = holderOf(file);
      if ((holder !== null && !isAlive(holder)) || (holder === null && olderThan(file, ORPHAN_MS))) {
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

/** A lock file without a pid this long after it was made was left by a process that could not write it. */
const ORPHAN_MS = 5_000;

function olderThan(file: string, ms: number): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs > ms;
  } catch {
    return false;
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
