import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The embedded database (PGlite) can be opened by one process only. Whoever opens it holds
 * DATA_DIR/gateway.lock; a running server also publishes there how the CLI can reach it, so operator
 * commands run inside the server process instead of opening the files a second time.
 */
export interface LockInfo {
  pid: number;
  role: 'server' | 'cli';
  url?: string;
  token?: string;
}

export class DataDirLock {
  private constructor(
    private readonly file: string,
    private info: LockInfo,
  ) {}

  static path(dataDir: string): string {
    return path.join(dataDir, 'gateway.lock');
  }

  static read(dataDir: string): LockInfo | null {
    try {
      const info = JSON.parse(readFileSync(DataDirLock.path(dataDir), 'utf8')) as LockInfo;
      return isAlive(info.pid) ? info : null;
    } catch {
      return null;
    }
  }

  /** Takes the lock, waiting up to `waitMs` for a live holder; a dead holder's lock is taken over. */
  static async acquire(dataDir: string, role: LockInfo['role'], waitMs = 30000): Promise<DataDirLock> {
    const file = DataDirLock.path(dataDir);
    const deadline = Date.now() + waitMs;
    for (;;) {
      try {
        const fd = openSync(file, 'wx', 0o600);
        const info: LockInfo = { pid: process.pid, role };
        writeFileSync(fd, JSON.stringify(info));
        closeSync(fd);
        return new DataDirLock(file, info);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const holder = DataDirLock.read(dataDir);
      if (!holder) {
        rmSync(file, { force: true });
        continue;
      }
      if (holder.role === 'server' || Date.now() > deadline) {
        throw new Error(
          `the embedded database in ${dataDir} is in use by process ${holder.pid} (${holder.role})`,
        );
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  publish(url: string): string {
    const token = randomBytes(32).toString('base64url');
    this.info = { ...this.info, url, token };
    writeFileSync(this.file, JSON.stringify(this.info), { mode: 0o600 });
    return token;
  }

  release(): void {
    try {
      const current = JSON.parse(readFileSync(this.file, 'utf8')) as LockInfo;
      if (current.pid === process.pid) rmSync(this.file, { force: true });
    } catch {
      // already gone
    }
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
