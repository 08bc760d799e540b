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
import { call, type Response } from '../../support/http.js';
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

/** Every answer any client got, for the "never a 500" and "503 in the route's shape" checks. */
const answers: { route: 'cashout' | 'sale'; response: Response }[] = [];

/** Sends until the answer is not 503, as a client honouring Retry-After does (same Idempotency-Key). */
async function untilAnswered(route: 'cashout' | 'sale', send: () => Promise<Response>): Promise<Response> {
  for (;;) {
    const response = await send();
    answers.push({ route, response });
    if (response.status !== 503) return response;
    await new Promise((r) => setTimeout(r, Number(response.headers['retry-after']) * 1000));
  }
}

let nextKey = 0;
async function cashout(): Promise<Response<{ uuid: string }>> {
  const key = `fo-${nextKey++}`;
  return (await untilAnswered('cashout', () =>
    call<{ uuid: string }>('POST', `${server.url}/api/public/cashout`, {
      headers: { ...merchant.keys, 'idempotency-key': key },
      body: { amount: 100, pixKey: '52998224725' },
    }),
  )) as Response<{ uuid: string }>;
}

async function newSale(): Promise<string> {
  const r = await call<{ uuid: string }>('POST', `${server.url}/api/sandbox/sales`, {
    headers: merchant.keys,
    body: {
      amount: 10_000,
      paymentMethod: 'PIX',
      customer: { name: 'Ana', email: 'ana@example.com', document: '52998224725', phone: '11987654321' },
      items: [{ title: 'Curso', unitPrice: 10_000, quantity: 1, tangible: false }],
    },
  });
  expect(r.status, r.text).toBe(201);
  return r.body.uuid;
}

const pay = (uuid: string) =>
  untilAnswered('sale', () =>
    call('POST', `${server.url}/api/sandbox/sales/${uuid}/status`, {
      headers: merchant.keys,
      body: { status: 'PAGO' },
    }),
  );

/** Clients alternating cashouts and sale payments until `until()` says stop, each finishing what it began. */
async function burst(clients: number, sales: string[], until: () => boolean) {
  const cashouts: string[] = [];
  const paid: string[] = [];
  const others: Response[] = [];
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; !until(); i++) {
        const sale = (i + c) % 2 === 0 ? sales.pop() : undefined;
        if (sale) {
          const r = await pay(sale);
          if (r.status === 200) paid.push(sale);
          else others.push(r);
        } else {
          const r = await cashout();
          if (r.status === 201) cashouts.push(r.body.uuid);
          else others.push(r);
        }
      }
    }),
  );
  return { cashouts, paid, others };
}

/** Every acknowledged withdrawal and payment is there once, and nothing else was written. */
async function expectExactlyAcknowledged(cashouts: string[], paid: string[]) {
  const withdrawals = await query<{ uuid: string }>(
    'SELECT uuid::text AS uuid FROM withdrawals WHERE account_id = $1',
    [merchant.accountId],
  );
  expect(withdrawals.map((w) => w.uuid).sort()).toEqual([...cashouts].sort());
  const credited = await query<{ uuid: string; n: number }>(
    `SELECT s.uuid::text AS uuid, count(j.id)::int AS n
       FROM sales s LEFT JOIN journal_entries j ON j.ref_type = 'sale' AND j.ref_id = s.id AND j.kind = 'sale.paid'
      WHERE s.account_id = $1 AND s.status = 'PAGO' GROUP BY s.uuid`,
    [merchant.accountId],
  );
  expect(credited.map((s) => s.uuid).sort()).toEqual([...paid].sort());
  expect(credited.filter((s) => s.n !== 1)).toEqual([]);
}

function expectNo500s() {
  const failures = answers.filter((a) => a.response.status >= 500 && a.response.status !== 503);
  expect(failures.map((a) => `${a.response.status} ${a.response.text}`)).toEqual([]);
  for (const { route, response } of answers.filter((a) => a.response.status === 503)) {
    expect(response.headers['retry-after']).toMatch(/^\d+$/);
    // POST /api/public/cashout is shape D, the sandbox's sale routes shape A
    const shape =
      route === 'cashout'
        ? { error: 'SERVICE_UNAVAILABLE' }
        : { success: false, error: { code: 'SERVICE_UNAVAILABLE' } };
    expect(response.body, `${route}: ${response.text}`).toMatchObject(shape);
  }
}

/** The payout worker (pg-boss jobs) took up again: every accepted withdrawal went to the provider. */
async function expectPayoutsResumed() {
  await waitUntil(
    async () => {
      const [row] = await query<{ n: number }>(
        `SELECT count(*)::int AS n FROM withdrawals WHERE account_id = $1 AND status = 'PENDING'`,
        [merchant.accountId],
      );
      return row!.n === 0;
    },
    30_000,
    () => 'no withdrawal left PENDING',
  );
}

async function expectEveryFactDelivered() {
  const facts = await query<{ id: string }>(
    'SELECT id::text AS id FROM notification_events WHERE account_id = $1',
    [merchant.accountId],
  );
  await waitUntil(
    () => {
      const seen = new Set(hooks.received.map((r) => String(r.headers['x-service-event-id'])));
      return facts.every((f) => seen.has(f.id));
    },
    30_000,
    () => 'every fact delivered',
  );
}

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
    const acknowledged = () =>
      answers.filter((a) => a.response.status === 200 || a.response.status === 201).length;
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
