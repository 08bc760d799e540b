/**
 * The embedded server's port: the recorded one while it is free, and never the gateway's own PORT, which the
 * gateway listens on only after its database has started (a port the system handed the server meanwhile could
 * be the one the gateway is about to take: seen as EADDRINUSE on the gateway's own port).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isZombie } from '../../../src/platform/embedded-postgres/alive.js';
import {
  choosePort,
  clearStalePidFile,
  runningPort,
} from '../../../src/platform/embedded-postgres/cluster.js';
import { waitUntil } from '../../support/wait.js';

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

/**
 * A server killed with SIGKILL in a container whose first process reaps nobody stays a zombie: its pid still
 * answers a signal, so PostgreSQL refused to start over its postmaster.pid. Real processes named `postgres` stand
 * in for the server and a backend (copies of true and sleep).
 */
describe('a postmaster.pid left by a killed server', () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const c of children) c.kill('SIGKILL');
  });
  const bin = path.join(dir, 'bin');
  mkdirSync(bin, { recursive: true });

  /**
   * A process named `postgres` that exits under a parent that never reaps it: its pid, a zombie. It lives a
   * moment first: one that exited before its shell became `sleep` was reaped by the shell (a loaded machine's
   * order), and never became a zombie.
   */
  async function zombiePostmaster(): Promise<number> {
    copyFileSync('/bin/sleep', path.join(bin, 'postgres'));
    const parent = spawn('sh', ['-c', '"$0" 0.3 & echo $!; exec sleep 60', path.join(bin, 'postgres')]);
    children.push(parent);
    const pid = await new Promise<number>((resolve) =>
      parent.stdout.once('data', (d) => resolve(Number(String(d).trim()))),
    );
    await waitUntil(
      () => isZombie(pid),
      10_000,
      () => `process ${pid} to become a zombie`,
    );
    return pid;
  }

  function clusterNaming(pid: number): string {
    const cluster = mkdtempSync(path.join(dir, 'cluster-'));
    writeFileSync(path.join(cluster, 'postmaster.pid'), `${pid}\n${cluster}\n0\n54329\n`);
    return cluster;
  }

  it('is no running server, and is removed so that the next one starts', async () => {
    const cluster = clusterNaming(await zombiePostmaster());
    expect(runningPort(cluster)).toBeNull();
    clearStalePidFile(cluster);
    expect(existsSync(path.join(cluster, 'postmaster.pid'))).toBe(false);
  });

  it('is kept while a backend of that server still works in the cluster', async () => {
    const cluster = clusterNaming(await zombiePostmaster());
    copyFileSync('/bin/sleep', path.join(bin, 'postgres-backend'));
    const backend = spawn(path.join(bin, 'postgres-backend'), ['60'], { cwd: cluster });
    children.push(backend);
    await waitUntil(() => existsSync(`/proc/${backend.pid}/cwd`), 10_000);
    clearStalePidFile(cluster);
    expect(existsSync(path.join(cluster, 'postmaster.pid'))).toBe(true);
    backend.kill('SIGKILL');
    await new Promise((resolve) => backend.once('exit', resolve));
    clearStalePidFile(cluster);
    expect(existsSync(path.join(cluster, 'postmaster.pid'))).toBe(false);
  });

  it('of a live server is kept, and names its port', async () => {
    const cluster = mkdtempSync(path.join(dir, 'cluster-'));
    copyFileSync('/bin/sleep', path.join(bin, 'postgres'));
    const server = spawn(path.join(bin, 'postgres'), ['60'], { cwd: cluster });
    children.push(server);
    await waitUntil(() => existsSync(`/proc/${server.pid}/cwd`), 10_000);
    writeFileSync(path.join(cluster, 'postmaster.pid'), `${server.pid}\n${cluster}\n0\n54329\n`);
    expect(runningPort(cluster)).toBe(54329);
    clearStalePidFile(cluster);
    expect(existsSync(path.join(cluster, 'postmaster.pid'))).toBe(true);
  });
});
