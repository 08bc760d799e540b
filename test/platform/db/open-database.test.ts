/**
 * A long-running process whose database is too busy to accept its first connections (a loaded machine, a
 * server still starting) waits for it, up to DB_FAILOVER_TIMEOUT_MS, instead of exiting at once; a command
 * fails at once (test/cli/cli.test.ts, "exit 1 with one line when the database is unreachable").
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { urlFor } from '../../support/pg.js';
import { type ChildServer, spawnGateway, startServer, type TestServer } from '../../support/server.js';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.js';

const SECRETS_KEY = randomBytes(32).toString('base64');
let api: TestServer;
let proxy: TcpProxy;
let worker: ChildServer | undefined;

beforeAll(async () => {
  api = await startServer({ workers: false, env: { SECRETS_KEY } });
  const real = new URL(urlFor('postgres'));
  proxy = await startTcpProxy(Number(real.port || 5432));
});

afterAll(async () => {
  await worker?.stop('SIGKILL');
  await proxy?.close();
  await api?.close();
});

it('a worker started while its database holds new connections unanswered waits for it, then runs', async () => {
  const url = new URL(api.databaseUrl);
  url.host = `127.0.0.1:${proxy.port}`;
  // the first rounds' probes (2 s each) get no answer; a round after these 5 s does
  proxy.holdNew(5_000);
  worker = await spawnGateway(['worker'], {
    SECRETS_KEY,
    NODE_ENV: 'test',
    DATABASE_URL: url.toString(),
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-worker-')),
  });
  expect(worker.output()).toMatch(
    /no read-write PostgreSQL among 127\.0\.0\.1:\d+ \(127\.0\.0\.1:\d+: timeout expired\); trying again for up to 30000 ms \(DB_FAILOVER_TIMEOUT_MS\)/,
  );
  expect(worker.output()).toMatch(/"msg":"workers started"/);
  expect(await worker.stop()).toBe(0);
  worker = undefined;
});
