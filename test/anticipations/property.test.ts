/**
 * Random sales, refunds, disputes and anticipations (some at once) keep every balance, receivable and revenue
 * consistent: the ledger verifies, the company's revenue is exactly the fees of paid sales and anticipations, the
 * console's daily report agrees with the ledger to the cent, and every anticipation took installments once.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revenueByDay } from '../../src/ledger/revenue.js';
import { dailyTotals } from '../../src/sales/daily-totals.js';
import { moveTo, sandboxSale } from '../sales/fixtures.js';
import type { TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { createOperator, type TestOperator } from '../support/operators.js';
import { startServer, type TestServer } from '../support/server.js';
import { anticipatingMerchant, buckets, cardSale, expectLedgerOk, plusDays, revenue } from './fixtures.js';

let server: TestServer;
let finance: TestOperator;
const db = () => server.runtime.platform.db;
const today = () => plusDays(0);

beforeAll(async () => {
  server = await startServer({
    workers: false,
    env: { CARD_SETTLEMENT_DAYS: '30', ANTICIPATION_AUTO_APPROVE: 'on' },
  });
  finance = await createOperator(server, 'finance');
});
afterAll(() => server?.close());

type Op =
  | { t: 'card'; amount: number; installments: number }
  | { t: 'pix'; amount: number }
  | { t: 'refund'; pick: number; cents: number | null }
  | { t: 'dispute'; pick: number }
  | { t: 'anticipate'; amount: number | null; days: number }
  | { t: 'race'; pick: number; days: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    t: fc.constant('card' as const),
    amount: fc.integer({ min: 500, max: 60_000 }),
    installments: fc.integer({ min: 1, max: 12 }),
  }),
  fc.record({ t: fc.constant('pix' as const), amount: fc.integer({ min: 100, max: 30_000 }) }),
  fc.record({
    t: fc.constant('refund' as const),
    pick: fc.nat(),
    cents: fc.option(fc.integer({ min: 1, max: 5_000 }), { nil: null }),
  }),
  fc.record({ t: fc.constant('dispute' as const), pick: fc.nat() }),
  fc.record({
    t: fc.constant('anticipate' as const),
    amount: fc.option(fc.integer({ min: 1, max: 80_000 }), { nil: null }),
    days: fc.integer({ min: 1, max: 370 }),
  }),
  fc.record({ t: fc.constant('race' as const), pick: fc.nat(), days: fc.integer({ min: 30, max: 370 }) }),
);

interface Sale {
  id: number;
  uuid: string;
}

async function total(accountId: number): Promise<number> {
  const b = await buckets(db(), accountId);
  return (b.available ?? 0) + (b.blocked ?? 0) + (b.receivable ?? 0);
}

function anticipate(m: TestMerchant, o: { amount: number | null; days: number }) {
  return call<{ status: string; feeCents: number }>('POST', `${server.url}/api/anticipations`, {
    headers: m.keys,
    body: o.amount === null ? { upTo: plusDays(o.days) } : { amountCents: o.amount },
  });
}

async function run(m: TestMerchant, ops: Op[]): Promise<void> {
  const sales: Sale[] = [];
  const cards: Sale[] = [];
  for (const o of ops) {
    switch (o.t) {
      case 'card': {
        const s = await cardSale(server, m, o.amount, o.installments);
        sales.push(s);
        cards.push(s);
        break;
      }
      case 'pix': {
        const s = await sandboxSale(server, m, { amount: o.amount });
        const paid = await moveTo(server, m, s.id, 'PAGO');
        expect(paid.status, paid.text).toBe(200);
        sales.push(s);
        break;
      }
      case 'refund': {
        const s = sales[o.pick % Math.max(1, sales.length)];
        if (!s) break;
        const r = await call('POST', `${server.url}/api/transactions/${s.id}/refund`, {
          headers: m.keys,
          body: o.cents === null ? {} : { amountCents: o.cents },
        });
        expect([202, 409, 422], r.text).toContain(r.status);
        break;
      }
      case 'dispute': {
        const s = cards[o.pick % Math.max(1, cards.length)];
        if (!s) break;
        const r = await call('POST', `${server.url}/api/sandbox/sales/${s.id}/dispute`, {
          headers: m.keys,
          body: { kind: 'chargeback' },
        });
        expect([201, 409, 422], r.text).toContain(r.status);
        break;
      }
      case 'anticipate': {
        const before = await total(m.accountId);
        const r = await anticipate(m, o);
        expect([201, 409, 422], r.text).toContain(r.status);
        // the merchant's money changes by the fee alone: receivable becomes available less it
        const fee = r.status === 201 && r.body.status === 'paid' ? r.body.feeCents : 0;
        expect(await total(m.accountId)).toBe(before - fee);
        break;
      }
      case 'race': {
        const s = cards[o.pick % Math.max(1, cards.length)];
        if (!s) break;
        const [refund, a, b] = await Promise.all([
          call('POST', `${server.url}/api/transactions/${s.id}/refund`, { headers: m.keys, body: {} }),
          anticipate(m, { amount: null, days: o.days }),
          anticipate(m, { amount: null, days: o.days }),
        ]);
        expect([202, 409, 422], refund.text).toContain(refund.status);
        expect([a, b].filter((x) => x.status === 201 && x.body.status === 'paid').length).toBeLessThanOrEqual(
          1,
        );
        break;
      }
    }
  }
}

async function checkConsistency(): Promise<void> {
  await expectLedgerOk(db());
  // revenue is exactly the fees earned: paid sales' and paid anticipations', less what refunds made gave back
  const [expected] = await db().query<{ sales: string; anticipations: string; returned: string }>(
    `SELECT (SELECT COALESCE(sum(system_fee), 0) FROM sales WHERE completed_at IS NOT NULL) AS sales,
            (SELECT COALESCE(sum(fee_cents), 0) FROM anticipations WHERE status = 'paid') AS anticipations,
            (SELECT COALESCE(sum(fee_returned), 0) FROM sale_refunds WHERE status = 'DONE') AS returned`,
  );
  expect(await revenue(db())).toBe(
    Number(expected!.sales) + Number(expected!.anticipations) - Number(expected!.returned),
  );
  // the console's report and the ledger agree to the cent
  const report = await dailyTotals(db(), { from: today(), to: today(), accountId: null, byAccount: false });
  const ledger = await revenueByDay(db(), today(), today());
  expect(ledger.reduce((s, d) => s + d.salesCents, 0)).toBe(report.reduce((s, r) => s + r.feeCents, 0));
  expect(ledger.reduce((s, d) => s + d.anticipationsCents, 0)).toBe(Number(expected!.anticipations));
  expect(ledger.reduce((s, d) => s + d.refundsCents, 0) + Number(expected!.returned)).toBe(0);
  // each paid anticipation took its installments, once; a rejected one holds none
  const bad = await db().query(
    `SELECT a.id FROM anticipations a
      WHERE (a.status = 'paid' AND (a.gross_cents <> (SELECT COALESCE(sum(amount), 0) FROM receivables r
                                                      WHERE r.anticipation_id = a.id AND r.settled_at IS NOT NULL)
                                 OR a.net_cents + a.fee_cents <> a.gross_cents))
         OR (a.status = 'rejected' AND EXISTS (SELECT 1 FROM receivables r WHERE r.anticipation_id = a.id))`,
  );
  expect(bad).toEqual([]);
}

describe('sales, refunds, disputes and anticipations at random', () => {
  it('keep every balance, receivable and revenue consistent', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 3, maxLength: 12 }), async (ops) => {
        const m = await anticipatingMerchant(server, finance);
        await run(m, ops);
        await checkConsistency();
      }),
      { numRuns: 12 },
    );
  });
});
