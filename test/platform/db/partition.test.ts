/**
 * The primary's host vanishes without closing anything (a network partition: no RST, no FIN), its standby is
 * promoted: requests left waiting on the lost host are answered 503, and the gateway serves from the new
 * primary, without a restart.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Runtime } from '../../../src/runtime.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call, type Response } from '../../support/http.js';
import { fundMerchant } from '../../support/ledger.js';
import { type Cluster, initPrimary, postgresOwnedDir, removeDir } from '../../support/pg-cluster.js';
import { startServer } from '../../support/server.js';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.js';
import { waitUntil } from '../../support/wait.js';

let root: string;
let primary: Cluster;
let standby: Cluster;
let proxy: TcpProxy;
let runtime: Runtime;
let url: string;
let merchant: TestMerchant;
let dataDir: string;

beforeAll(async () => {
  root = postgresOwnedDir('gw-partition-');
  primary = await initPrimary(root);
  await primary.query('CREATE DATABASE gateway');
  standby = await primary.standby(root, 'standby1');
  proxy = await startTcpProxy(primary.port);
  dataDir = mkdtempSync(path.join(tmpdir(), 'gw-partition-data-'));
  const env = {
    DATA_DIR: dataDir,
    DATABASE_URL: `postgres://postgres@127.0.0.1:${proxy.port},${standby.host}/gateway`,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
  };
  // the gateway on these clusters (startServer's fresh database is not wanted: the database is the cluster's)
  const server = await startServer({ databaseUrl: env.DATABASE_URL, env, workers: true });
  runtime = server.runtime;
  url = server.url;
  merchant = await createMerchant(server);
  await fundMerchant(runtime.platform.db, merchant.accountId, 100_000_000);
}, 120_000);

afterAll(async () => {
  await runtime?.close();
  await proxy?.close();
  await primary?.stop('immediate');
  await standby?.stop('immediate');
  removeDir(root);
  removeDir(dataDir);
});

let n = 0;
const started = Date.now();
/**
 * A cashout, answered within 45 s or failed naming it and the gateway's database state: every wait of the
 * gateway's is bounded (the heartbeat's 5 s, a connect's 5 s, a pooled connection's 10 s), so a request still
 * unanswered then is one the gateway lost, and the test says which it was rather than timing out.
 */
const cashout = (): Promise<Response<{ uuid: string }>> => {
  const i = n++;
  const sentAt = Date.now() - started;
  const answer = call<{ uuid: string }>('POST', `${url}/api/public/cashout`, {
    headers: { ...merchant.keys, 'idempotency-key': `part-${i}` },
    body: { amount: 100, pixKey: '52998224725' },
  });
  let timer: NodeJS.Timeout | undefined;
  const lost = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const db = runtime.platform.db;
      reject(
        new Error(
          `cashout ${i} (sent ${sentAt} ms into the file) had no answer in 45 s; the database: ` +
            `available ${db.available}, host ${db.host} (primary ${primary.port}, proxy ${proxy.port}, standby ${standby.host}), ` +
            `requests waiting for a connection ${db.waiting}`,
        ),
      );
    }, 45_000);
  });
  return Promise.race([answer, lost]).finally(() => clearTimeout(timer));
};

it('answers 503 to what waited on a vanished primary, and serves from the promoted standby', async () => {
  expect((await cashout()).status).toBe(201);
  proxy.blackhole();
  // sent to the vanished host: they wait until the gateway gives that host up
  const stranded = Array.from({ length: 4 }, () => cashout());
  // the heartbeat finds the host silent and starts looking; until a host is writable, 503 at once
  await waitUntil(
    () => !runtime.platform.db.available,
    30_000,
    () => 'the search for a primary',
  );
  const meanwhile = await cashout();
  expect(meanwhile.status, meanwhile.text).toBe(503);
  expect(meanwhile.headers['retry-after']).toBe('1');
  await standby.promote();
  for (const r of await Promise.all(stranded)) {
    expect([201, 503], r.text).toContain(r.status);
    if (r.status === 503) expect(r.body).toMatchObject({ error: 'SERVICE_UNAVAILABLE' });
  }
  await waitUntil(
    async () => (await cashout()).status === 201,
    30_000,
    () => 'a 201 from the new primary',
  );
  expect(runtime.platform.db.host).toBe(standby.host);
  // its own waits (the search, the promotion, the first 201) may take a minute and more on a loaded machine
}, 150_000);
