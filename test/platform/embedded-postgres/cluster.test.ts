/**
 * The embedded server's port: the recorded one while it is free, and never the gateway's own PORT, which the
 * gateway listens on only after its database has started (a port the system handed the server meanwhile could
 * be the one the gateway is about to take: seen as EADDRINUSE on the gateway's own port).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { choosePort } from '../../../src/platform/embedded-postgres/cluster.js';

const dir = mkdtempSync(path.join(tmpdir(), 'gw-port-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A port free at this moment. */
function someFreePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('the embedded server’s port', () => {
  it('keeps the recorded port while it is free, but never one it must avoid', async () => {
    const file = path.join(dir, 'postgres.port');
    const recorded = await someFreePort();
    writeFileSync(file, `${recorded}\n`);
    expect(await choosePort(file)).toBe(recorded);

    const other = await choosePort(file, [recorded]);
    expect(other).not.toBe(recorded);
    expect(readFileSync(file, 'utf8').trim()).toBe(String(other));
  });
});
