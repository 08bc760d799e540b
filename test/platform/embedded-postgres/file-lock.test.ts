import { mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileLock } from '../../../src/platform/embedded-postgres/file-lock.js';

const dir = mkdtempSync(path.join(tmpdir(), 'gw-lock-'));

describe('FileLock', () => {
  it('is taken over from a holder that died, and from an empty file a full disk left behind', async () => {
    const dead = path.join(dir, 'dead.lock');
    writeFileSync(dead, '999999999'); // no such process
    const a = await FileLock.acquire(dead, 1000);
    expect(readFileSync(dead, 'utf8')).toBe(String(process.pid));
    a.release();

    const empty = path.join(dir, 'empty.lock');
    writeFileSync(empty, '');
    const old = new Date(Date.now() - 60_000);
    utimesSync(empty, old, old);
    const b = await FileLock.acquire(empty, 1000);
    expect(readFileSync(empty, 'utf8')).toBe(String(process.pid));
    b.release();
  });

  it('waits for a live holder, and names it when it gives up', async () => {
    const held = path.join(dir, 'held.lock');
    const first = await FileLock.acquire(held, 1000);
    await expect(FileLock.acquire(held, 200)).rejects.toThrow(`held by process ${process.pid}`);
    // an empty file just made (its maker about to write its pid) is not taken from it
    const fresh = path.join(dir, 'fresh.lock');
    writeFileSync(fresh, '');
    await expect(FileLock.acquire(fresh, 200)).rejects.toThrow('held by process unknown');
    first.release();
  });
});
