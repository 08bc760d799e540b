/**
 * The subscription scheduler never charges a period twice: two worker processes racing over the same due
 * subscriptions, and a worker SIGKILLed mid-round whose leftovers (claims without a sale, card sales whose
 * outcome it never heard) a second worker takes over. Every subscription ends with exactly one paid sale. And
 * the tries a scheduler makes together fail alone: a refused card does not stop its group, and a missing
 * acquirer leaves the claim for later rather than failing the customer.
 */
import pg from 'pg';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cardBody, cardEnding } from '../cards/cards.js';
import { CUSTOMER } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { type ChildServer, spawnGateway, startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';

let server: TestServer;
let merchant: TestMerchant;
const cleanup: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  server = await startServer({ workers: false });
  merchant = await createMerchant(server);
  cleanup.push(() => server.close());
  return async () => {
    for (const c of cleanup.reverse()) await c();
  };
});
/** Each test's worker processes, stopped after it: a later test's subscriptions are its own workers'. */
const workers: ChildServer[] = [];
afterEach(async () => {
  for (const w of workers.splice(0)) await w.stop();
  await server.runtime.platform.db.query(
    `UPDATE subscriptions SET status = 'canceled', next_charge_at = NULL, lease_until = NULL`,
  );
});

const api = <T>(method: string, path: string, body?: unknown) =>
  call<T & { message?: string }>(method, `${server.url}${path}`, {
    headers: merchant.keys,
    ...(body === undefined ? {} : { body }),
  });
const db = () => server.runtime.platform.db;

/** `n` card subscriptions starting today: all due at once; each card ending as `endings` says (approved). */
async function dueSubscriptions(
  n: number,
  endings: string[] = Array.from({ length: n }, () => '1'),
): Promise<string[]> {
  return (await dueWithCards(n, endings)).map((s) => s.id);
}

async function dueWithCards(n: number, endings: string[]) {
  const plan = await api<{ id: string }>('POST', '/api/plans', {
    name: 'Clube',
    amountCents: 2500,
    interval: 'month',
    methods: ['CREDIT_CARD'],
  });
  const made: { id: string; customerId: string; cardId: string }[] = [];
  for (let i = 0; i < n; i++) {
    const customer = await api<{ id: string }>('POST', '/api/customers', CUSTOMER);
    const token = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
      headers: { 'x-api-public-key': merchant.publicKey },
      body: cardBody(cardEnding(endings[i]!)),
    });
    const card = await api<{ id: string }>('POST', `/api/customers/${customer.body.id}/cards`, {
      token: token.body.token,
    });
    const sub = await api<{ id: string }>('POST', '/api/subscriptions', {
      customerId: customer.body.id,
      planId: plan.body.id,
      paymentMethod: 'CREDIT_CARD',
      cardId: card.body.id,
    });
    expect(sub.status, sub.text).toBe(201);
    made.push({ id: sub.body.id, customerId: customer.body.id, cardId: card.body.id });
  }
  return made;
}

const worker = async () => {
  const child: ChildServer = await spawnGateway(['worker'], {
    ...server.env,
    DATABASE_URL: server.databaseUrl,
  });
  workers.push(child);
  return child;
};

/** Each subscription's sales by status, and its tries, from the database. */
async function ledgerOf(ids: string[]) {
  const sales = await db().query<{ subscription_id: string; status: string; n: number }>(
    `SELECT subscription_id::text, status, count(*)::int AS n FROM sales WHERE subscription_id = ANY($1::uuid[])
      GROUP BY 1, 2`,
    [ids],
  );
  const active = await db().query<{ n: number }>(
    `SELECT count(*)::int AS n FROM subscriptions WHERE uuid = ANY($1::uuid[]) AND status = 'active' AND period_index = 1`,
    [ids],
  );
  return { sales, active: active[0]!.n };
}

describe('the subscription scheduler', () => {
  it('with two workers racing charges each due period exactly once', async () => {
    const ids = await dueSubscriptions(30);
    await Promise.all([worker(), worker()]);
    await waitUntil(async () => (await ledgerOf(ids)).active === ids.length, 90_000);
    const { sales } = await ledgerOf(ids);
    expect(sales.every((s) => s.status === 'PAGO' && s.n === 1)).toBe(true);
    expect(new Set(sales.map((s) => s.subscription_id)).size).toBe(ids.length);
    const tries = await db().query<{ n: number }>(
      `SELECT count(*)::int AS n FROM subscription_charges c JOIN subscriptions s ON s.id = c.subscription_id
        WHERE s.uuid = ANY($1::uuid[])`,
      [ids],
    );
    expect(tries[0]!.n).toBe(ids.length);
  }, 150_000);

  it('charges a group together, where a declined card and a deleted one fail alone: the others are paid', async () => {
    const subs = await dueWithCards(8, ['1', '1', '2', '1', '1', '1', '1', '4']);
    const deleted = subs[5]!;
    const gone = await api('DELETE', `/api/customers/${deleted.customerId}/cards/${deleted.cardId}`);
    expect(gone.status).toBe(204);
    await worker();
    const ids = subs.map((s) => s.id);
    const states = async () =>
      db().query<{ uuid: string; status: string; attempt: number }>(
        'SELECT uuid::text, status, attempt FROM subscriptions WHERE uuid = ANY($1::uuid[])',
        [ids],
      );
    await waitUntil(
      async () =>
        (await ledgerOf(ids)).active === 6 &&
        (await states()).filter((s) => s.status === 'incomplete' && s.attempt === 1).length === 2,
      60_000,
    );
    const byId = new Map((await states()).map((s) => [s.uuid, s.status]));
    // first periods refused stay incomplete, retried as dunning
    expect(byId.get(subs[2]!.id)).toBe('incomplete'); // declined at the acquirer
    expect(byId.get(deleted.id)).toBe('incomplete'); // no card to charge: no sale at all
    const { sales } = await ledgerOf(ids);
    expect(sales.filter((s) => s.status === 'PAGO').map((s) => s.n)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(sales.filter((s) => s.status === 'RECUSADO')).toEqual([
      { subscription_id: subs[2]!.id, status: 'RECUSADO', n: 1 },
    ]);
    expect(sales.some((s) => s.subscription_id === deleted.id)).toBe(false);
  }, 150_000);

  it('with no acquirer to charge cards, a due try is left to be taken over: no dunning for what the customer did not do', async () => {
    const [id] = await dueSubscriptions(1);
    // the sandbox acquirer charges nobody: with SANDBOX off, the workers have no card charger
    const child = await spawnGateway(['worker'], {
      ...server.env,
      DATABASE_URL: server.databaseUrl,
      SANDBOX: 'off',
    });
    workers.push(child);
    await waitUntil(() => /subscription charge not made/.test(child.output()), 30_000);
    const [row] = await db().query<{ status: string; attempt: number; leased: boolean }>(
      `SELECT status, attempt, lease_until > now() + interval '1 minute' AS leased FROM subscriptions
        WHERE uuid = $1`,
      [id],
    );
    expect(row).toEqual({ status: 'incomplete', attempt: 1, leased: true });
    const tries = await db().query<{ sale_id: number | null; outcome: string | null }>(
      `SELECT c.sale_id, c.outcome FROM subscription_charges c JOIN subscriptions s ON s.id = c.subscription_id
        WHERE s.uuid = $1`,
      [id],
    );
    expect(tries).toEqual([{ sale_id: null, outcome: null }]); // the claim, kept for another scheduler
  }, 90_000);

  it('after a worker is SIGKILLed mid-round, another takes over its claims and no period is charged twice', async () => {
    const ids = await dueSubscriptions(30);
    // the merchant's account row held: a sale's insert (its key to the account) waits, so the worker is caught
    // between its claims and its sales
    const lock = new pg.Client({ connectionString: server.databaseUrl });
    await lock.connect();
    cleanup.push(() => lock.end());
    await lock.query('BEGIN');
    await lock.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [merchant.accountId]);
    const doomed = await worker();
    await waitUntil(async () => {
      const [row] = await db().query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`,
      );
      return row!.n > 0;
    }, 60_000);
    await doomed.stop('SIGKILL');
    await lock.query('ROLLBACK');
    const left = await db().query<{ n: number }>(
      `SELECT count(*)::int AS n FROM subscription_charges WHERE sale_id IS NULL AND outcome IS NULL`,
    );
    expect(left[0]!.n).toBeGreaterThan(0); // it died holding claims without sales
    // the time a dead worker's leftovers wait for, passed: claim leases and the card jobs' wait for an answer
    await db().query(
      `UPDATE subscription_charges SET claimed_at = claimed_at - interval '1 hour' WHERE sale_id IS NULL`,
    );
    await db().query(`UPDATE subscriptions SET lease_until = now() WHERE lease_until > now() AND period_index = 0
      AND status <> 'canceled'`);
    await db().query(
      `UPDATE card_payments SET updated_at = updated_at - interval '1 hour' WHERE state = 'authorizing'`,
    );
    await worker();
    await waitUntil(async () => {
      // a sale the acquirer never made ends refused: its retry day is brought to now
      await db().query(
        `UPDATE subscriptions SET next_charge_at = now()
          WHERE status = 'incomplete' AND attempt > 0 AND lease_until IS NULL AND next_charge_at > now()`,
      );
      return (await ledgerOf(ids)).active === ids.length;
    }, 120_000);
    const { sales } = await ledgerOf(ids);
    const paid = sales.filter((s) => s.status === 'PAGO');
    expect(paid.every((s) => s.n === 1)).toBe(true);
    expect(paid.length).toBe(ids.length);
  }, 200_000);
});
