import {
  approvedCard,
  type BenchServer,
  benchMerchant,
  printRow,
  probeApart,
  probeMeasurement,
} from '../lib.js';

const RENEWALS = Number(process.env.BENCH_RENEWALS ?? 10_000);
/** The goal: every renewal due at once charged within this. */
const WITHIN_SECONDS = 60;
/** The API's read (the balance) at a steady rate: its p99 idle, then while the renewals are charged. */
const READ_RATE = 100;

/**
 * The read's p99 over `seconds`, each read sent at its own time on a thread of its own (probeApart): autocannon's
 * `overallRate` sent each connection's reads of a second back to back, and timed them on the thread that polls
 * the scheduler's progress.
 */
async function p99Of(url: string, headers: Record<string, string>, seconds: number) {
  return probeMeasurement(await probeApart({ url, headers, rate: READ_RATE, seconds }).samples, seconds);
}

/**
 * 10,000 card subscriptions whose renewal is due at once, charged by the gateway's own scheduler (its worker
 * loop, the sandbox acquirer): all within 60 s, each period exactly once (no subscription with two sales for a
 * period), while the API's balance read at a steady rate keeps its p99 under twice its idle value.
 */
export async function run(server: BenchServer): Promise<void> {
  const merchant = await benchMerchant(server.db);
  const headers = { ...merchant.keys, 'content-type': 'application/json' };
  const post = async <T>(
    path: string,
    body: unknown,
    extra: Record<string, string> = headers,
  ): Promise<T> => {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: extra,
      body: JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as T;
  };
  const customer = await post<{ id: string }>('/api/customers', {
    name: 'Bench Subscriber',
    email: 'subscriber@example.com',
    document: '52998224725',
  });
  const token = await post<{ token: string }>(
    '/api/cards/tokens',
    { number: approvedCard('411111'), holderName: 'BENCH BUYER', expMonth: 12, expYear: 2035, cvv: '123' },
    { 'x-api-public-key': merchant.keys['x-api-public-key']!, 'content-type': 'application/json' },
  );
  const card = await post<{ id: string }>(`/api/customers/${customer.id}/cards`, { token: token.token });
  const plan = await post<{ id: string }>('/api/plans', {
    name: 'Bench',
    amountCents: 4990,
    interval: 'month',
    methods: ['CREDIT_CARD'],
  });
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const model = await post<{ id: string }>('/api/subscriptions', {
    customerId: customer.id,
    planId: plan.id,
    paymentMethod: 'CREDIT_CARD',
    cardId: card.id,
    startDate: tomorrow,
  });
  // the rest copied from the first in one statement: each its own id and page token, period 0 already paid
  await server.db.query(
    `INSERT INTO subscriptions (uuid, account_id, customer_id, plan_id, payment_method, card_id, status, anchor_date,
        period_index, current_period_start, current_period_end, next_charge_at, billing_token_hash, billing_token_sealed)
     SELECT gen_random_uuid(), account_id, customer_id, plan_id, payment_method, card_id, 'active', anchor_date, 1,
            current_period_start, current_period_end, 'infinity', sha256(('bench' || g)::bytea), billing_token_sealed
       FROM subscriptions, generate_series(2, $2::int) g WHERE uuid = $1`,
    [model.id, RENEWALS],
  );
  await server.db.query(
    `UPDATE subscriptions SET status = 'active', period_index = 1, next_charge_at = 'infinity' WHERE uuid = $1`,
    [model.id],
  );
  const balance = `${server.url}/api/public/balance`;
  const idle = await p99Of(balance, merchant.keys, 10);

  // all due now: the scheduler's next round (every few seconds) takes them
  const started = Date.now();
  await server.db.query(`UPDATE subscriptions SET next_charge_at = now() WHERE account_id = $1`, [
    merchant.accountId,
  ]);
  const paid = async () =>
    Number(
      (
        await server.db.query<{ n: string }>(
          `SELECT count(*) AS n FROM subscription_charges c JOIN subscriptions s ON s.id = c.subscription_id
            WHERE s.account_id = $1 AND c.outcome = 'paid'`,
          [merchant.accountId],
        )
      )[0]!.n,
    );
  let busy = { reqPerSec: 0, p99: 0, non2xx: 0, errors: 0 };
  const reading = (async () => {
    // the API read while the renewals run, in 5 s windows; the worst window's p99 is kept
    while ((await paid()) < RENEWALS && Date.now() - started < 3 * WITHIN_SECONDS * 1000) {
      const w = await p99Of(balance, merchant.keys, 5);
      if (w.p99 > busy.p99) busy = { ...w, non2xx: busy.non2xx + w.non2xx, errors: busy.errors + w.errors };
    }
  })();
  let done = 0;
  while (done < RENEWALS && Date.now() - started < 3 * WITHIN_SECONDS * 1000) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    done = await paid();
  }
  const seconds = (Date.now() - started) / 1000;
  await reading;
  const [dupes] = await server.db.query<{ n: string }>(
    `SELECT count(*) AS n FROM (
       SELECT subscription_id FROM sales WHERE subscription_id IS NOT NULL AND account_id = $1
        GROUP BY subscription_id HAVING count(*) FILTER (WHERE status = 'PAGO') > 1) d`,
    [merchant.accountId],
  );
  const duplicates = Number(dupes!.n);
  console.log(
    `\n${done} of ${RENEWALS} renewals paid in ${seconds.toFixed(1)} s; subscriptions charged twice: ${duplicates}`,
  );
  printRow({
    name: `Subscriptions: ${RENEWALS} renewals due at once, charged by the scheduler (sandbox acquirer)`,
    unit: 'renewals',
    target: {
      reqPerSec: done / seconds,
      p99: 0,
      non2xx: RENEWALS - done + duplicates,
      errors: 0,
    },
    baselineName: `the goal: ${RENEWALS} within ${WITHIN_SECONDS} s`,
    baseline: { reqPerSec: RENEWALS / WITHIN_SECONDS, p99: 0, non2xx: 0, errors: 0 },
    goal: 1,
  });
  printRow({
    name: `API balance read at ${READ_RATE} req/s while the renewals run: p99 against twice its idle p99`,
    target: busy,
    baselineName: 'the same read idle, before (its p99 × 2 is the bound)',
    baseline: idle,
    goal: 1,
    ratio: (2 * Math.max(idle.p99, 1)) / Math.max(busy.p99, 1),
  });
}
