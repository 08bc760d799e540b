import { randomBytes } from 'node:crypto';
import type autocannon from 'autocannon';
import {
  type BenchMerchant,
  type BenchServer,
  fundedMerchant,
  measure,
  measureAround,
  printRow,
} from '../lib.js';

/** R$ 100,00 cashouts of one merchant, each with an Idempotency-Key of its own. */
export function cashoutRequests(merchant: BenchMerchant): autocannon.Request[] {
  const prefix = randomBytes(4).toString('hex');
  let n = 0;
  return [
    {
      method: 'POST',
      path: '/api/public/cashout',
      headers: { ...merchant.keys, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 100, pixKey: '52998224725' }),
      setupRequest: (req) => ({
        ...req,
        headers: { ...req.headers, 'idempotency-key': `bench-${prefix}-${n++}` },
      }),
    },
  ];
}

/**
 * POST /api/public/cashout (distinct Idempotency-Key per request, a merchant with ample balance) vs one raw
 * transaction of the same shape (update one balance row, insert one row) on the same pool.
 */
export async function run(server: BenchServer): Promise<void> {
  const merchant = await fundedMerchant(server.db);
  let backlog = '';
  // the baseline before and after the target, averaged (load drifts on these shared machines); the second
  // baseline waits until the payouts the target left behind have gone out
  const { target, baseline } = await measureAround(
    { url: `${server.url}/bench/tx`, method: 'POST' },
    { url: server.url, requests: cashoutRequests(merchant) },
    async () => {
      backlog = await payoutBacklog(server, merchant.accountId);
    },
  );
  const spread = await measure({ url: `${server.url}/bench/tx-spread`, method: 'POST' });
  printRow({
    name: 'POST /api/public/cashout (distinct Idempotency-Key each)',
    target,
    baselineName: 'POST /bench/tx (UPDATE the one balance row + INSERT one row), mean of before and after',
    baseline,
    goal: 2.5, // issue 13: no regression below what group commit reached
  });
  printRow({
    name: 'POST /api/public/cashout, against the spread baseline (for information)',
    target,
    baselineName: 'POST /bench/tx-spread (UPDATE one of 64 balance rows + INSERT one row)',
    baseline: spread,
    goal: 0.6,
  });
  console.log(backlog);
}

/**
 * The payout worker runs beside the API (as `npm start` runs it), so the cashout row pays for submitting what
 * it accepts: how many withdrawals were still waiting for submission when the load stopped, and how
 * long they took to go out.
 */
export async function payoutBacklog(server: BenchServer, accountId: number): Promise<string> {
  const pending = async () => {
    const [r] = await server.db.query<{ pending: number; total: number }>(
      `SELECT count(*) FILTER (WHERE status = 'PENDING')::int AS pending, count(*)::int AS total
         FROM withdrawals WHERE account_id = $1`,
      [accountId],
    );
    return r!;
  };
  const atEnd = await pending();
  const started = Date.now();
  let left = atEnd.pending;
  while (left > 0 && Date.now() - started < 120_000) {
    await new Promise((r) => setTimeout(r, 200));
    left = (await pending()).pending;
  }
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  return `  payouts: ${atEnd.total} withdrawals accepted, ${atEnd.pending} not yet submitted when the load stopped${
    left > 0 ? `, ${left} still not after 120 s` : `, all submitted ${secs} s later`
  }`;
}
