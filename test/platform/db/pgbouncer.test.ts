/**
 * PgBouncer in transaction mode between the gateway and PostgreSQL (deploy/pgbouncer/pgbouncer.ini): two
 * `gateway serve --no-worker` and one `gateway worker` name PgBouncer in DATABASE_URL and the server in
 * DATABASE_DIRECT_URL. PgBouncer holds fewer server connections than there are processes, so consecutive
 * transactions of one process run on different server connections: a named prepared statement, a session
 * setting or a LISTEN sent through it would fail (PgBouncer 1.18 does not track prepared statements). The
 * API's hot paths run through it: balance, cashouts, PIX charges and their payment, webhook delivery, key
 * revocation; the LISTEN connections reach the server directly.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/accounts/accounts.js';
import { type Db, openDb } from '../../../src/platform/db/db.js';
import { saleInput } from '../../sales/fixtures.js';
import { runGateway } from '../../support/cli.js';
import { login } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { fundMerchant } from '../../support/ledger.js';
import { freshDatabase } from '../../support/pg.js';
import { type PgBouncer, startPgBouncer } from '../../support/pgbouncer.js';
import { type Receiver, startReceiver } from '../../support/receiver.js';
import { type ChildServer, spawnGateway } from '../../support/server.js';
import { waitUntil } from '../../support/wait.js';

/** Server connections PgBouncer may hold for the test's database: fewer than the processes sharing them. */
const POOL_SIZE = 3;

let database: { url: string; drop: () => Promise<void> };
let bouncer: PgBouncer;
let dataDir: string;
let db: Db;
let env: Record<string, string>;
const apis: ChildServer[] = [];
let worker: ChildServer;
let hooks: Receiver;
let keys: Record<string, string>;
let panel: Record<string, string>;
let accountId: number;

const api = (i: number) => apis[i % 2]!.url;

beforeAll(async () => {
  database = await freshDatabase();
  const direct = new URL(database.url);
  bouncer = await startPgBouncer({
    server: { host: direct.hostname, port: Number(direct.port || 5432) },
    user: decodeURIComponent(direct.username),
    password: 'pooled-password',
    poolSize: POOL_SIZE,
  });
  dataDir = mkdtempSync(path.join(tmpdir(), 'gw-pgbouncer-'));
  env = {
    DATABASE_URL: bouncer.url(direct.pathname.slice(1)),
    DATABASE_DIRECT_URL: database.url,
    DATA_DIR: dataDir,
    NODE_ENV: 'test',
    WEBHOOK_RETRY_DELAYS_MS: '200,400',
  };
  apis.push(...(await Promise.all([1, 2].map(() => spawnGateway(['serve', '--no-worker'], env)))));
  worker = await spawnGateway(['worker'], env);
  db = openDb({ databaseUrl: database.url, poolMax: 2 });
  hooks = await startReceiver();

  const account = await createAccount(db, {
    name: 'Pooled',
    email: 'pooled@example.com',
    password: 'pooled-password',
  });
  accountId = account.id;
  const session = await login({ url: api(0) }, 'pooled@example.com', 'pooled-password');
  panel = { cookie: session.cookie, 'x-csrf-token': session.csrf };
  const cred = await call<{ publicKey: string; privateKey: string }>('POST', `${api(1)}/api/credentials`, {
    headers: panel,
  });
  keys = { 'x-api-public-key': cred.body.publicKey, 'x-api-private-key': cred.body.privateKey };
  const hook = await call('POST', `${api(1)}/api/webhook`, {
    headers: panel,
    body: { webhookUrl: `${hooks.url}/hooks`, events: ['*'] },
  });
  expect(hook.status, hook.text).toBe(201);
}, 60_000);

afterAll(async () => {
  await Promise.all([...apis, worker].filter(Boolean).map((p) => p.stop()));
  await hooks?.close();
  await db?.close();
  await bouncer?.stop();
  await database?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('the gateway through PgBouncer in transaction mode', () => {
  it('reads balances and accepts cashouts concurrently, exactly what the balance allows', async () => {
    await fundMerchant(db, accountId, 1_000_000_000);
    const results = await Promise.all(
      Array.from({ length: 80 }, (_, i) =>
        i % 4 === 0
          ? call('GET', `${api(i)}/api/public/balance`, { headers: keys })
          : call<{ uuid: string }>('POST', `${api(i)}/api/public/cashout`, {
              headers: { ...keys, 'idempotency-key': `pooled-${i}` },
              body: { amount: 100, pixKey: '52998224725' },
            }),
      ),
    );
    expect(results.filter((r) => r.status !== 200 && r.status !== 201).map((r) => r.text)).toEqual([]);
    const [row] = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM withdrawals WHERE account_id = $1',
      [accountId],
    );
    expect(row!.n).toBe(60);
    const balance = await call<{ available: number }>('GET', `${api(1)}/api/public/balance`, {
      headers: keys,
    });
    expect(balance.status, balance.text).toBe(200);
    // the worker submits each withdrawal (pg-boss jobs sent in the cashout's transaction, through PgBouncer)
    await waitUntil(
      async () => {
        const [left] = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM withdrawals WHERE account_id = $1 AND status = 'PENDING'`,
          [accountId],
        );
        return left!.n === 0;
      },
      30_000,
      () => 'every withdrawal submitted',
    );
  });

  it('creates PIX charges and credits each payment once, reported through both API processes', async () => {
    const sales = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        call<{ uuid: string }>('POST', `${api(i)}/api/transactions`, { headers: keys, body: saleInput() }),
      ),
    );
    for (const s of sales) expect(s.status, s.text).toBe(201);
    const reports = await Promise.all(
      sales.flatMap((s) =>
        [0, 1].map((i) =>
          call('POST', `${api(i)}/api/sandbox/sales/${s.body.uuid}/status`, {
            headers: keys,
            body: { status: 'PAGO' },
          }),
        ),
      ),
    );
    for (const r of reports) expect(r.status, r.text).toBe(200);
    const [paid] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM journal_entries WHERE ref_type = 'sale' AND kind = 'sale.paid'`,
    );
    expect(paid!.n).toBe(16);
  });

  it('delivers every fact to the webhook once', async () => {
    const facts = await waitUntil(
      async () => {
        const [row] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM notification_events');
        return row!.n > 0 && hooks.received.length >= row!.n && row!.n;
      },
      30_000,
      () => 'every fact delivered',
    );
    await new Promise((r) => setTimeout(r, 500)); // a duplicate would arrive meanwhile
    const ids = hooks.received.map((r) => String(r.headers['x-service-event-id']));
    expect(ids.length).toBeGreaterThanOrEqual(facts);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('refuses a revoked key on both API processes as soon as the revocation answers', async () => {
    const extra = await call<{ id: number; publicKey: string; privateKey: string }>(
      'POST',
      `${api(0)}/api/credentials`,
      { headers: panel },
    );
    const extraKeys = {
      'x-api-public-key': extra.body.publicKey,
      'x-api-private-key': extra.body.privateKey,
    };
    for (const i of [0, 1]) {
      expect((await call('GET', `${api(i)}/api/public/balance`, { headers: extraKeys })).status).toBe(200);
    }
    const revoked = await call('DELETE', `${api(1)}/api/credentials/${extra.body.id}`, { headers: panel });
    expect(revoked.status, revoked.text).toBe(204);
    for (const i of [0, 1]) {
      expect((await call('GET', `${api(i)}/api/public/balance`, { headers: extraKeys })).status).toBe(401);
    }
  });

  it('keeps LISTEN off PgBouncer and its server connections within its pool', async () => {
    // each process's LISTEN connection is on the server, none of them a PgBouncer client
    const listeners = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND application_name LIKE 'gateway-%-listener-%'`,
    );
    expect(listeners[0]!.n).toBe(3);
    const clients = await bouncer.admin<{ application_name: string }>('SHOW CLIENTS');
    expect(clients.length).toBeGreaterThan(3); // the processes' pools are PgBouncer's clients
    expect(clients.filter((c) => c.application_name.includes('-listener-'))).toEqual([]);
    const pools = await bouncer.admin<{
      database: string;
      sv_active: string;
      sv_idle: string;
      sv_used: string;
    }>('SHOW POOLS');
    const pool = pools.find((p) => p.database === new URL(database.url).pathname.slice(1))!;
    expect(Number(pool.sv_active) + Number(pool.sv_idle) + Number(pool.sv_used)).toBeLessThanOrEqual(
      POOL_SIZE,
    );
    expect(bouncer.log()).not.toMatch(/prepared statement|unsupported startup parameter/);
  });

  it('leaves the ledger clean (an operator command through PgBouncer)', async () => {
    const verify = await runGateway(['ledger', 'verify', '--json'], env);
    expect(verify.code, verify.stderr).toBe(0);
    expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true, problems: [] });
  });

  // last: PgBouncer does not come back
  it('answers /health 503 once PgBouncer is gone: the process cannot serve, though its probe reaches the server', async () => {
    expect((await call('GET', `${api(0)}/health`)).status).toBe(200);
    bouncer.kill();
    await waitUntil(
      async () => {
        await call('GET', `${api(0)}/api/public/balance`, { headers: keys }); // the pool finds it gone
        return (await call('GET', `${api(0)}/health`)).status === 503;
      },
      20_000,
      () => '/health 503 with PgBouncer gone',
    );
  });
});
