/**
 * Scale-out on one database: two `gateway serve --no-worker` and two `gateway worker` processes share one
 * PostgreSQL, and every request is sent through both API processes at once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/accounts/accounts.js';
import { type Db, openDb } from '../../../src/platform/db/db.js';
import { runGateway } from '../../support/cli.js';
import { login } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { fundMerchant } from '../../support/ledger.js';
import { freshDatabase } from '../../support/pg.js';
import { type Receiver, startReceiver } from '../../support/receiver.js';
import { type ChildServer, spawnGateway } from '../../support/server.js';
import { waitUntil } from '../../support/wait.js';

let database: { url: string; drop: () => Promise<void> };
let dataDir: string;
let db: Db;
let env: Record<string, string>;
const apis: ChildServer[] = [];
const workers: ChildServer[] = [];
let hooks: Receiver;
let keys: Record<string, string>;
let panel: Record<string, string>;
let accountId: number;

/** The i-th request goes to API process i % 2. */
const api = (i: number) => apis[i % 2]!.url;

beforeAll(async () => {
  database = await freshDatabase();
  dataDir = mkdtempSync(path.join(tmpdir(), 'gw-scale-'));
  env = {
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    NODE_ENV: 'test',
    WEBHOOK_RETRY_DELAYS_MS: '200,400',
  };
  apis.push(...(await Promise.all([1, 2].map(() => spawnGateway(['serve', '--no-worker'], env)))));
  workers.push(...(await Promise.all([1, 2].map(() => spawnGateway(['worker'], env)))));
  db = openDb({ databaseUrl: database.url, poolMax: 4 });
  hooks = await startReceiver();

  const account = await createAccount(db, {
    name: 'Scale',
    email: 'scale@example.com',
    password: 'scale-password',
  });
  accountId = account.id;
  const session = await login({ url: api(0) }, 'scale@example.com', 'scale-password');
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
});

afterAll(async () => {
  await Promise.all([...apis, ...workers].map((p) => p.stop()));
  await hooks?.close();
  await db?.close();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('two API and two worker processes on one database', () => {
  it('accept exactly what the balance allows, once per idempotency key, through both API processes', async () => {
    await fundMerchant(db, accountId, 200_000); // R$ 2.000,00
    // 40 keys sent twice each (once through each API process) for R$ 100,00: 20 fit
    const results = await Promise.all(
      Array.from({ length: 80 }, (_, i) =>
        call<{ uuid: string }>('POST', `${api(i)}/api/public/cashout`, {
          headers: { ...keys, 'idempotency-key': `scale-${i >> 1}` },
          body: { amount: 100, pixKey: '52998224725' },
        }),
      ),
    );
    // a key still running on the other process answers 409 IDEMPOTENCY_KEY_IN_USE; too little money, 422
    expect(results.filter((r) => ![201, 409, 422].includes(r.status)).map((r) => r.text)).toEqual([]);
    const byKey = new Map<number, string>();
    results.forEach((r, i) => {
      if (r.status !== 201) return;
      expect(byKey.get(i >> 1) ?? r.body.uuid).toBe(r.body.uuid); // both processes answered the same one
      byKey.set(i >> 1, r.body.uuid);
    });
    expect(new Set(byKey.values()).size).toBe(20); // no overdraft, no duplicate
    for (const [key, uuid] of byKey) {
      const replay = await call<{ uuid: string }>('POST', `${api(key)}/api/public/cashout`, {
        headers: { ...keys, 'idempotency-key': `scale-${key}` },
        body: { amount: 100, pixKey: '52998224725' },
      });
      expect(replay.body.uuid).toBe(uuid);
    }
    const [rows] = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM withdrawals WHERE account_id = $1',
      [accountId],
    );
    expect(rows!.n).toBe(20);
    const [balance] = await db.query<{ balance: number }>(
      `SELECT balance FROM ledger_accounts WHERE account_id = $1 AND bucket = 'available'`,
      [accountId],
    );
    expect(balance!.balance).toBeGreaterThanOrEqual(0);
    // the workers submit them, each once
    await waitUntil(async () => {
      const [left] = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM withdrawals WHERE account_id = $1 AND status = 'PENDING'`,
        [accountId],
      );
      return left!.n === 0;
    }, 30_000);
  });

  it('apply each sale status change once when it is reported through both API processes at once', async () => {
    const sales = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call<{ uuid: string }>('POST', `${api(i)}/api/sandbox/sales`, {
          headers: keys,
          body: {
            amount: 10_000,
            paymentMethod: 'PIX',
            customer: {
              name: 'Ana',
              email: 'ana@example.com',
              document: '52998224725',
              phone: '11987654321',
            },
            items: [{ title: 'Curso', unitPrice: 10_000, quantity: 1, tangible: false }],
          },
        }),
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
    const twice = await db.query(
      `SELECT ref_id, kind FROM journal_entries WHERE ref_type = 'sale' GROUP BY 1, 2 HAVING count(*) > 1`,
    );
    expect(twice).toEqual([]); // no sale credited twice
    const [paid] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM notification_events WHERE event_type = 'sale.paid' AND subject_type = 'sale'`,
    );
    expect(paid!.n).toBe(12); // one fact per sale, whichever process won
  });

  it('deliver every fact to the webhook once, across both worker processes', async () => {
    // facts keep coming while withdrawals complete: wait until every fact made so far has arrived
    const facts = await waitUntil(async () => {
      const [row] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM notification_events');
      return row!.n > 0 && hooks.received.length >= row!.n && row!.n;
    }, 30_000);
    await new Promise((r) => setTimeout(r, 500)); // a duplicate would arrive meanwhile
    const ids = hooks.received.map((r) => String(r.headers['x-service-event-id']));
    expect(ids.length).toBeGreaterThanOrEqual(facts);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('refuse a revoked key on both API processes as soon as the revocation answers', async () => {
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
    expect(
      (await call('DELETE', `${api(1)}/api/credentials/${extra.body.id}`, { headers: panel })).status,
    ).toBe(204);
    for (const i of [0, 1]) {
      expect((await call('GET', `${api(i)}/api/public/balance`, { headers: extraKeys })).status).toBe(401);
    }
  });

  it('leave the ledger clean', async () => {
    const verify = await runGateway(['ledger', 'verify', '--json'], {
      DATABASE_URL: database.url,
      DATA_DIR: dataDir,
    });
    expect(verify.code, verify.stderr).toBe(0);
    expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true, problems: [] });
  });
});
