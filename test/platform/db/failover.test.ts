/**
 * The primary's host dies mid-burst: a PostgreSQL 15 primary with a synchronous standby (pg_basebackup), the
 * gateway on both (multi-host DATABASE_URL), several clients sending cashouts and sale payments; the primary
 * is SIGKILLed and the standby promoted. Everything answered 2xx is there exactly once, nothing was answered
 * 500, the ledger verifies, every fact is delivered, and the same happens across a restart of the primary.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/platform/db/db.js';
import { isDatabaseUnavailable } from '../../../src/platform/db/unavailable.js';
import type { Runtime } from '../../../src/runtime.js';
import { runGateway } from '../../support/cli.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { FailoverLoad } from '../../support/failover-load.js';
import { call } from '../../support/http.js';
import { fundMerchant } from '../../support/ledger.js';
import {
  type Cluster,
  initPrimary,
  postgresOwnedDir,
  removeDir,
  requireSyncStandby,
} from '../../support/pg-cluster.js';
import { type Receiver, startReceiver } from '../../support/receiver.js';
import { startServer, type TestServer } from '../../support/server.js';
import { waitUntil } from '../../support/wait.js';

let root: string;
let primary: Cluster;
let standby: Cluster;
let runtime: Runtime;
let server: TestServer;
let db: Db;
let merchant: TestMerchant;
let hooks: Receiver;
let env: Record<string, string>;

beforeAll(async () => {
  root = postgresOwnedDir('gw-failover-');
  primary = await initPrimary(root, ['synchronous_commit = on']);
  await primary.query('CREATE DATABASE gateway');
  standby = await primary.standby(root, 'standby1');
  await requireSyncStandby(primary, 'standby1');
  env = {
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-failover-data-')),
    DATABASE_URL: `postgres://postgres@${primary.host},${standby.host}/gateway`,
    WEBHOOK_RETRY_DELAYS_MS: '200,400',
    METRICS_TOKEN: 'failover-metrics',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
  };
  server = await startServer({ databaseUrl: env.DATABASE_URL, env, workers: true });
  runtime = server.runtime;
  const url = server.url;
  env = server.env;
  db = runtime.platform.db;
  merchant = await createMerchant(server, 'Failover');
  hooks = await startReceiver();
  const hook = await call('POST', `${url}/api/webhook`, {
    headers: merchant.panel,
    body: { webhookUrl: `${hooks.url}/hooks`, events: ['*'] },
  });
  expect(hook.status, hook.text).toBe(201);
  await fundMerchant(db, merchant.accountId, 1_000_000_000);
}, 120_000);

afterAll(async () => {
  await runtime?.close();
  await hooks?.close();
  await primary?.stop('immediate');
  await standby?.stop('immediate');
  removeDir(root);
  removeDir(env?.DATA_DIR);
});

/**
 * The checks' own statements, on the gateway's pool: one that meets a connection the failover or restart
 * closed (answered 503 to a client, who would retry) is sent again.
 */
function query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  return waitUntil(
    () =>
      db.query<T>(sql, params).catch((err: unknown) => {
        if (isDatabaseUnavailable(err)) return false;
        throw err;
      }),
    30_000,
    () => sql,
  );
}

const load = new FailoverLoad({
  url: () => server.url,
  keys: () => merchant.keys,
  accountId: () => merchant.accountId,
  query,
  keyPrefix: 'fo',
});
const { answers, newSale, burst, acknowledged, expectExactlyAcknowledged, expectNo500s } = load;
const expectPayoutsResumed = () => load.expectPayoutsResumed(30_000);
const expectEveryFactDelivered = () => load.expectEveryFactDelivered(hooks, 30_000);

async function databaseAvailable(): Promise<string | undefined> {
  const r = await call('GET', `${server.url}/metrics`, {
    headers: { authorization: 'Bearer failover-metrics' },
  });
  return /^gateway_database_available (\d)$/m.exec(r.text)?.[1];
}

describe('a primary with a synchronous standby', () => {
  it('loses nothing acknowledged when the primary is SIGKILLed mid-burst and the standby promoted', async () => {
    const sales = await Promise.all(Array.from({ length: 80 }, () => newSale()));
    let promotedAt = 0;
    let firstAfterPromotion = 0;
    let done = false;
    const load = burst(6, sales, () => done);
    await waitUntil(
      () => acknowledged() >= 40,
      30_000,
      () => 'traffic before the kill',
    );
    primary.kill();
    await waitUntil(
      () => answers.some((a) => a.response.status === 503),
      30_000,
      () => 'a 503',
    );
    await standby.promote();
    promotedAt = Date.now();
    const before = acknowledged();
    // back within 30 s of the promotion (a liveness bound, not a speed figure: the bench measures that)
    await waitUntil(
      () => {
        if (acknowledged() > before && !firstAfterPromotion) firstAfterPromotion = Date.now();
        return acknowledged() >= before + 40;
      },
      30_000,
      () => 'traffic after the promotion',
    );
    done = true;
    const { cashouts, paid, others } = await load;
    expect(others.map((r) => `${r.status} ${r.text}`)).toEqual([]);
    expect(firstAfterPromotion - promotedAt).toBeLessThan(30_000);
    expect(db.host).toBe(`127.0.0.1:${standby.port}`);
    expect(await databaseAvailable()).toBe('1');
    expectNo500s();
    await expectExactlyAcknowledged(cashouts, paid);
    await expectEveryFactDelivered();
    await expectPayoutsResumed();

    const verify = await runGateway(['ledger', 'verify', '--json'], env);
    expect(verify.code, verify.stderr).toBe(0);
    expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true, problems: [] });
  });

  it('reconnects by itself when the primary restarts in place', async () => {
    const sales = await Promise.all(Array.from({ length: 20 }, () => newSale()));
    const before = await query<{ uuid: string }>('SELECT uuid::text AS uuid FROM withdrawals');
    let done = false;
    const load = burst(4, sales, () => done);
    const served = answers.length;
    await waitUntil(
      () => answers.length >= served + 20,
      30_000,
      () => 'traffic before the restart',
    );
    await standby.stop('immediate'); // the promoted standby is the primary now
    await standby.start();
    const restarted = answers.length;
    await waitUntil(
      () => answers.slice(restarted).filter((a) => a.response.status < 300).length >= 20,
      30_000,
      () => 'traffic after the restart',
    );
    done = true;
    const { cashouts, paid, others } = await load;
    expect(others.map((r) => `${r.status} ${r.text}`)).toEqual([]);
    expectNo500s();
    const withdrawals = await query<{ uuid: string }>(
      'SELECT uuid::text AS uuid FROM withdrawals WHERE NOT (uuid::text = ANY($1))',
      [before.map((b) => b.uuid)],
    );
    expect(withdrawals.map((w) => w.uuid).sort()).toEqual([...cashouts].sort());
    expect(paid.length).toBeGreaterThan(0);
    await expectEveryFactDelivered();
  });
});
