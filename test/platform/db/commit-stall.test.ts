/**
 * A server that takes statements but finishes no COMMIT: a PostgreSQL 15 primary told to wait for a synchronous
 * standby that is not there (as Patroni's strict synchronous mode is with its standby gone). Nothing fails: the
 * connections stay up, reads answer, and every request that writes hangs. The gateway says so: an error line
 * naming the likely causes, /health 503 while it lasts, and both undone once commits finish again, when the
 * writes that waited complete.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { fundMerchant } from '../../support/ledger.js';
import { type Cluster, initPrimary, postgresOwnedDir, removeDir } from '../../support/pg-cluster.js';
import { startServer, type TestServer } from '../../support/server.js';
import { waitUntil } from '../../support/wait.js';

let root: string;
let primary: Cluster;
let server: TestServer;
let merchant: TestMerchant;
let dataDir: string;
let logged = '';

beforeAll(async () => {
  root = postgresOwnedDir('gw-stall-');
  primary = await initPrimary(root, ['synchronous_commit = on']);
  await primary.query('CREATE DATABASE gateway');
  dataDir = mkdtempSync(path.join(tmpdir(), 'gw-stall-data-'));
  server = await startServer({
    databaseUrl: primary.url('gateway'),
    env: { DATA_DIR: dataDir },
    workers: false,
  });
  const write = server.logs.write.bind(server.logs);
  server.logs.write = (chunk: string | Buffer) => {
    logged += chunk.toString();
    write(chunk);
  };
  merchant = await createMerchant(server, 'Stall');
  await fundMerchant(server.runtime.platform.db, merchant.accountId, 100_000);
}, 120_000);

afterAll(async () => {
  await primary?.query('ALTER SYSTEM RESET synchronous_standby_names').catch(() => undefined);
  await primary?.query('SELECT pg_reload_conf()').catch(() => undefined);
  await server?.close();
  await primary?.stop('immediate');
  removeDir(root);
  removeDir(dataDir);
});

const health = () => call<{ status: string }>('GET', `${server.url}/health`);

it('a long statement sent with its COMMIT is not a stall: /health stays 200, nothing logged', async () => {
  const db = server.runtime.platform.db;
  const slow = db.txEndingWith(async () => [null, 'SELECT pg_sleep(6.5)']);
  await new Promise((r) => setTimeout(r, 6_000));
  expect((await health()).status).toBe(200);
  await slow;
  expect(logged).not.toContain('writes stalled');
}, 30_000);

it('writes stalled by a synchronous standby that is gone: logged, /health 503, both undone when commits finish', async () => {
  expect((await health()).status).toBe(200);
  server.logs.expect('writes stalled');
  await primary.query("ALTER SYSTEM SET synchronous_standby_names = 'ghost'");
  await primary.query('SELECT pg_reload_conf()');
  // a cashout: its transaction's COMMIT waits for the ghost
  const cashout = call<{ status: string }>('POST', `${server.url}/api/public/cashout`, {
    headers: { ...merchant.keys, 'idempotency-key': 'stall-1' },
    body: { amount: 150, pixKey: '52998224725' },
  });
  let settled = false;
  void cashout.finally(() => {
    settled = true;
  });
  const down = await waitUntil(async () => {
    const h = await health();
    return h.status === 503 && h;
  }, 20_000);
  expect(down.body).toEqual({ status: 'unavailable' });
  expect(settled).toBe(false);
  // reads still answer: only what writes waits
  expect((await call('GET', `${server.url}/api/public/balance`, { headers: merchant.keys })).status).toBe(
    200,
  );
  await waitUntil(() => logged.includes('writes stalled'), 5_000);
  expect(logged).toMatch(
    /writes stalled: a COMMIT on 127\.0\.0\.1:\d+ has waited \d+ s for a synchronous standby/,
  );
  expect(logged).toContain('synchronous_standby_names');

  await primary.query('ALTER SYSTEM RESET synchronous_standby_names');
  await primary.query('SELECT pg_reload_conf()');
  const answered = await cashout;
  expect(answered.status, JSON.stringify(answered.body)).toBeLessThan(300);
  await waitUntil(async () => (await health()).status === 200, 10_000);
  await waitUntil(() => logged.includes('writes resumed'), 5_000);
}, 60_000);
