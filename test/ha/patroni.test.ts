/**
 * High availability decided by Patroni: three PostgreSQL 15 nodes run by Patroni on etcd
 * (deploy/patroni/patroni.yml; synchronous_mode_strict, use_pg_rewind), a real `gateway serve` process naming
 * every node in DATABASE_URL, and clients sending cashouts and sale payments all along.
 * (a) The primary's host dies (Patroni and PostgreSQL SIGKILLed): Patroni promotes the synchronous standby,
 *     the gateway follows; everything answered 2xx is there once, nothing else was written, the ledger
 *     verifies, every fact is delivered.
 * (b) The old primary's host comes back: Patroni rewinds it and it follows the new primary, never a primary.
 * (c) A planned `patronictl switchover`: the time the gateway answers 503 is measured.
 * Run by `npm run test:ha` (vitest.ha.config.ts); ETCD_MEMBERS=3 runs etcd as three members.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.js';
import { type Db, openDb } from '../../src/platform/db/db.js';
import { runGateway } from '../support/cli.js';
import { login } from '../support/factories.js';
import { FailoverLoad } from '../support/failover-load.js';
import { call } from '../support/http.js';
import { fundMerchant } from '../support/ledger.js';
import { type PatroniCluster, type PatroniNode, startPatroniCluster, TIMING } from '../support/patroni.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { type ChildServer, spawnGateway } from '../support/server.js';
import { waitUntil } from '../support/wait.js';

const ETCD_MEMBERS = Number(process.env.ETCD_MEMBERS ?? 1);

let cluster: PatroniCluster;
let gateway: ChildServer;
let db: Db & { locate(): Promise<void> };
let env: Record<string, string>;
let hooks: Receiver;
let keys: Record<string, string>;
let accountId: number;
/** What the test measured, printed at the end (and written to test-output/ha.json). */
const figures: Record<string, number | string> = {};
/** The most nodes seen writable at one moment (sampled every 100 ms all along). */
let mostPrimaries = 0;
let watcher: NodeJS.Timeout | undefined;

beforeAll(async () => {
  const t0 = Date.now();
  cluster = await startPatroniCluster({ nodes: 3, etcdMembers: ETCD_MEMBERS });
  figures.clusterStartMs = Date.now() - t0;
  const leader = (await cluster.leader())!;
  await leader.query('CREATE DATABASE gateway');
  watcher = setInterval(() => {
    void Promise.all(
      cluster.nodes.map((n) => n.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby')),
    ).then((states) => {
      const primaries = states.filter((s) => s !== null && s[0]?.standby === false).length;
      mostPrimaries = Math.max(mostPrimaries, primaries);
    });
  }, 100);
  env = {
    DATABASE_URL: cluster.url('gateway'),
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-ha-data-')),
    NODE_ENV: 'test',
    WEBHOOK_RETRY_DELAYS_MS: '200,400',
    METRICS_TOKEN: 'ha-metrics',
  };
  gateway = await spawnGateway(['serve'], env);
  db = openDb({ databaseUrl: env.DATABASE_URL!, poolMax: 4 });
  await db.locate();
  hooks = await startReceiver();
  const account = await createAccount(db, { name: 'HA', email: 'ha@example.com', password: 'ha-password-1' });
  accountId = account.id;
  const session = await login({ url: gateway.url }, 'ha@example.com', 'ha-password-1');
  const panel = { cookie: session.cookie, 'x-csrf-token': session.csrf };
  const cred = await call<{ publicKey: string; privateKey: string }>(
    'POST',
    `${gateway.url}/api/credentials`,
    { headers: panel },
  );
  keys = { 'x-api-public-key': cred.body.publicKey, 'x-api-private-key': cred.body.privateKey };
  const hook = await call('POST', `${gateway.url}/api/webhook`, {
    headers: panel,
    body: { webhookUrl: `${hooks.url}/hooks`, events: ['*'] },
  });
  expect(hook.status, hook.text).toBe(201);
  await fundMerchant(db, accountId, 1_000_000_000);
}, 180_000);

afterAll(async () => {
  if (watcher) clearInterval(watcher);
  await gateway?.stop();
  await hooks?.close();
  await db?.close();
  await cluster?.stop();
  if (env?.DATA_DIR) rmSync(env.DATA_DIR, { recursive: true, force: true });
  console.log(`HA figures (etcd members: ${ETCD_MEMBERS}): ${JSON.stringify(figures)}`);
  const out = path.resolve(import.meta.dirname, '../../test-output');
  mkdirSync(out, { recursive: true });
  writeFileSync(
    path.join(out, 'ha.json'),
    `${JSON.stringify({ etcdMembers: ETCD_MEMBERS, ...figures }, null, 2)}\n`,
  );
}, 120_000);

/**
 * The checks' own statements, on whichever node is the primary now (never a standby that has not replayed
 * yet); sent again while there is none.
 */
function query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  return waitUntil(
    async () => {
      for (const node of cluster.nodes) {
        const rows = await node.query<T>(sql, 'gateway', params, true);
        if (rows) return rows;
      }
      return false;
    },
    60_000,
    () => sql,
  );
}

const load = new FailoverLoad({
  url: () => gateway.url,
  keys: () => keys,
  accountId: () => accountId,
  query,
  keyPrefix: 'ha',
});
const {
  answers,
  newSale,
  burst,
  acknowledged,
  expectExactlyAcknowledged,
  expectNo500s,
  expectPayoutsResumed,
} = load;
const expectEveryFactDelivered = () => load.expectEveryFactDelivered(hooks);

async function expectLedgerClean() {
  const verify = await runGateway(['ledger', 'verify', '--json'], env);
  expect(verify.code, verify.stderr).toBe(0);
  expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true, problems: [] });
}

async function databaseAvailable(): Promise<string | undefined> {
  const r = await call('GET', `${gateway.url}/metrics`, { headers: { authorization: 'Bearer ha-metrics' } });
  return /^gateway_database_available (\d)$/m.exec(r.text)?.[1];
}

const existing = async () =>
  (
    await query<{ uuid: string }>(
      'SELECT uuid::text AS uuid FROM withdrawals UNION ALL SELECT uuid::text FROM sales WHERE status = $1',
      ['PAGO'],
    )
  ).map((r) => r.uuid);

let killed: PatroniNode;

describe('a Patroni cluster with a synchronous standby (strict)', () => {
  it('promotes the synchronous standby when the primary host dies mid-burst, and the gateway follows, losing nothing acknowledged', async () => {
    const since = await existing();
    const sales = await Promise.all(Array.from({ length: 80 }, () => newSale()));
    killed = (await cluster.leader())!;
    const members = await cluster.members();
    const sync = members.find((m) => m.role === 'sync_standby')!.name;
    let done = false;
    const load = burst(6, sales, () => done);
    await waitUntil(
      () => acknowledged() >= 40,
      30_000,
      () => 'traffic before the kill',
    );
    const from = answers.length;
    const killedAt = Date.now();
    killed.kill();
    const next = await waitUntil(
      async () => {
        const leader = await cluster.leader().catch(() => undefined);
        return leader && leader !== killed && leader;
      },
      60_000,
      () => 'a new leader',
    );
    figures.killToNewLeaderMs = Date.now() - killedAt;
    expect(next.name).toBe(sync); // only the synchronous standby may be promoted
    const before = acknowledged();
    await waitUntil(
      () => acknowledged() >= before + 40,
      60_000,
      () => 'traffic after the promotion',
    );
    done = true;
    const { cashouts, paid, others } = await load;
    const after = answers.slice(from);
    const lastUnavailable = after.filter((a) => a.response.status === 503).at(-1)?.at ?? killedAt;
    const back = after.find((a) => a.at > lastUnavailable && a.response.status < 300)?.at ?? lastUnavailable;
    figures.killToLast503ThenBackMs = back - killedAt;
    figures.failover503s = after.filter((a) => a.response.status === 503).length;
    expect(others.map((r) => `${r.status} ${r.text}`)).toEqual([]);
    expect(await databaseAvailable()).toBe('1');
    expectNo500s();
    await expectExactlyAcknowledged(cashouts, paid, since);
    await expectEveryFactDelivered();
    await expectPayoutsResumed();
    await expectLedgerClean();
    expect(mostPrimaries).toBe(1);
  });

  it("brings the old primary back as a standby of the new one by Patroni's rewind, never as a primary", async () => {
    const leader = (await cluster.leader())!;
    const [{ timeline }] = (await leader.query<{ timeline: number }>(
      'SELECT timeline_id AS timeline FROM pg_control_checkpoint()',
    ))!;
    const startedAt = Date.now();
    killed.start();
    await waitUntil(
      async () => {
        const members = await cluster.members().catch(() => []);
        const me = members.find((m) => m.name === killed.name);
        const standby = await killed.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
        return (
          me !== undefined &&
          (me.role === 'replica' || me.role === 'sync_standby') &&
          me.state === 'running' &&
          me.timeline === timeline &&
          standby?.[0]?.standby === true
        );
      },
      120_000,
      () => `${killed.name} streaming from ${leader.name}:\n${killed.log().slice(-4000)}`,
    );
    figures.rejoinMs = Date.now() - startedAt;
    const log = killed.log();
    // Patroni compared its timeline and LSN with the new primary's before following it
    expect(log).toMatch(/Local timeline=\d+ lsn=/);
    figures.oldPrimaryRewound = /running pg_rewind from/.test(log)
      ? 'pg_rewind ran'
      : 'no divergence: followed without rewind';
    if (/running pg_rewind from/.test(log)) expect(log).toMatch(/pg_rewind exit code=0/);
    expect(mostPrimaries).toBe(1);
    // it holds every acknowledged write: the withdrawals it streams are the primary's
    const rows = await waitUntil(async () => {
      const [p] = (await leader.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM withdrawals',
        'gateway',
      ))!;
      const s = await killed.query<{ n: number }>('SELECT count(*)::int AS n FROM withdrawals', 'gateway');
      return s?.[0]?.n === p!.n && p!.n;
    }, 30_000);
    expect(rows).toBeGreaterThan(0);
  });

  it('answers 503 only briefly during a planned switchover, and loses nothing', async () => {
    const since = await existing();
    const sales = await Promise.all(Array.from({ length: 60 }, () => newSale()));
    const leader = (await cluster.leader())!;
    const candidate = (await cluster.members()).find((m) => m.role === 'sync_standby')!.name;
    let done = false;
    const load = burst(6, sales, () => done);
    await waitUntil(
      () => acknowledged() >= 40,
      30_000,
      () => 'traffic before the switchover',
    );
    const from = answers.length;
    const startedAt = Date.now();
    await cluster.ctl(['switchover', '--leader', leader.name, '--candidate', candidate, '--force']);
    figures.switchoverCommandMs = Date.now() - startedAt;
    await waitUntil(
      async () => (await cluster.leader().catch(() => undefined))?.name === candidate,
      60_000,
      () => 'the candidate leads',
    );
    const before = acknowledged();
    await waitUntil(
      () => acknowledged() >= before + 40,
      60_000,
      () => 'traffic after the switchover',
    );
    done = true;
    const { cashouts, paid, others } = await load;
    const during = answers.slice(from);
    const unavailable = during.filter((a) => a.response.status === 503);
    const first = unavailable[0]?.at ?? 0;
    const last = unavailable.at(-1)?.at ?? 0;
    const backAt = during.find((a) => a.at > last && a.response.status < 300)?.at ?? last;
    figures.switchover503s = unavailable.length;
    figures.switchover503WindowMs = unavailable.length ? backAt - first : 0;
    expect(others.map((r) => `${r.status} ${r.text}`)).toEqual([]);
    expectNo500s();
    await expectExactlyAcknowledged(cashouts, paid, since);
    await expectEveryFactDelivered();
    await expectPayoutsResumed();
    await expectLedgerClean();
    expect(mostPrimaries).toBe(1);
    // a planned switchover costs about one Patroni loop, not a leader key's ttl
    expect(figures.switchover503WindowMs).toBeLessThan(TIMING.ttl * 1000);
  });
});
