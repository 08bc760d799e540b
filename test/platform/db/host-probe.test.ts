/**
 * A probe is bounded while it waits for its answer too, not only to connect: PgBouncer whose server has just
 * gone logs a client in and holds its query in its queue (up to query_wait_timeout, 30 s), and a search round
 * waits for every probe (test/ha/patroni-pgbouncer.test.ts met it in a switchover). Here a server that logs
 * a client in and never answers a query stands first in the list, the local server second.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { HostLocator } from '../../../src/platform/db/host-locator.js';
import { PROBE_TIMEOUT_MS } from '../../../src/platform/db/host-probe.js';
import { parseHostList } from '../../../src/platform/db/hosts.js';
import { admin, freshDatabase, urlFor } from '../../support/pg.js';

let silent: Server | undefined;
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => silent?.close(r));
});

/** Answers the startup message (AuthenticationOk, ReadyForQuery), then nothing: a queue that never moves. */
async function startQueueingServer(): Promise<number> {
  silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('data', () => {
      const authOk = Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0]);
      const ready = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);
      socket.write(Buffer.concat([authOk, ready]));
    });
  });
  await new Promise<void>((r) => silent!.listen(0, '127.0.0.1', r));
  return (silent.address() as { port: number }).port;
}

it('skips a host that logs the probe in and never answers its query, and finds the next', async () => {
  const port = await startQueueingServer();
  const real = new URL(urlFor('postgres'));
  const auth = real.username ? `${real.username}${real.password ? `:${real.password}` : ''}@` : '';
  const hosts = `127.0.0.1:${port},${real.hostname}:${real.port || 5432}`;
  const list = parseHostList(`postgres://${auth}${hosts}${real.pathname}${real.search}`, 'read-write');
  expect(list.hosts).toHaveLength(2);
  const locator = new HostLocator(list, { failoverTimeoutMs: 30_000, applicationName: 'probe-test' });
  const started = Date.now();
  await locator.locate();
  const took = Date.now() - started;
  locator.close();
  expect(locator.target.port).toBe(Number(real.port || 5432));
  expect(took).toBeGreaterThanOrEqual(PROBE_TIMEOUT_MS - 100);
  expect(took).toBeLessThan(PROBE_TIMEOUT_MS + 3_000);
}, 20_000);

it('names a host that answers but is not what is looked for as what it is (read-only, a standby)', async () => {
  const database = await freshDatabase();
  const name = new URL(database.url).pathname.slice(1);
  try {
    await admin((c) => c.query(`ALTER DATABASE ${name} SET default_transaction_read_only = on`));
    const locator = new HostLocator(parseHostList(database.url, 'read-write'), {
      failoverTimeoutMs: 30_000,
      applicationName: 'probe-test',
    });
    await expect(locator.locate()).rejects.toThrow(
      /^no read-write PostgreSQL among [^ ]+ \([^ ]+: read-only\)$/,
    );
    locator.close();
  } finally {
    await database.drop();
  }
});
