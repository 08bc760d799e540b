/**
 * Random split card and PIX sales, partial and full refunds, anticipations and disputes (of a part or all that is
 * left, won or lost), all through the API:
 * every party's balance stays equal to its postings (`ledger verify`), no party's available balance goes below
 * zero but by a dispute, and every refund's allocation adds up (its parts and the fee it gave back are its
 * amount; each part's receivable and available sources are the part).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ENTRY_DESCRIPTIONS } from '../../../src/ledger/statement.js';
import { verifyLedger } from '../../../src/ledger/verify.js';
import { anticipatingMerchant } from '../../anticipations/fixtures.js';
import { cardBody, cardEnding } from '../../cards/cards.js';
import { decide, openDispute } from '../../disputes/fixtures.js';
import { createRecipient } from '../../recipients/fixtures.js';
import type { TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { createOperator, type TestOperator } from '../../support/operators.js';
import { startServer, type TestServer } from '../../support/server.js';
import { moveTo, saleInput } from '../fixtures.js';

let server: TestServer;
let finance: TestOperator;
const db = () => server.runtime.platform.db;

beforeAll(async () => {
  server = await startServer({
    workers: false,
    env: { CARD_SETTLEMENT_DAYS: '30', ANTICIPATION_AUTO_APPROVE: 'on' },
  });
  finance = await createOperator(server, 'finance');
});
afterAll(() => server?.close());

type Rule = { who: number; cents: number; liable: boolean };
type Op =
  | { t: 'card'; amount: number; installments: number; split: Rule[] }
  | { t: 'pix'; amount: number; split: Rule[] }
  | { t: 'refund'; pick: number; cents: number | null }
  | { t: 'dispute'; pick: number; outcome: 'won' | 'lost'; cents: number | null }
  | { t: 'anticipate'; amount: number };

const rules = fc.array(
  fc.record({ who: fc.nat({ max: 2 }), cents: fc.integer({ min: 1, max: 300 }), liable: fc.boolean() }),
  { maxLength: 2 },
);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    t: fc.constant('card' as const),
    amount: fc.integer({ min: 1_000, max: 30_000 }),
    installments: fc.integer({ min: 1, max: 6 }),
    split: rules,
  }),
  fc.record({
    t: fc.constant('pix' as const),
    amount: fc.integer({ min: 1_000, max: 20_000 }),
    split: rules,
  }),
  fc.record({
    t: fc.constant('refund' as const),
    pick: fc.nat(),
    cents: fc.option(fc.integer({ min: 1, max: 8_000 }), { nil: null }),
  }),
  fc.record({ t: fc.constant('refund' as const), pick: fc.nat(), cents: fc.integer({ min: 1, max: 8_000 }) }),
  fc.record({
    t: fc.constant('dispute' as const),
    pick: fc.nat(),
    outcome: fc.constantFrom('won' as const, 'lost' as const),
    // a part of the sale (lost, the sale is PAGO again with that part refunded) or all that is left
    cents: fc.option(fc.integer({ min: 1, max: 8_000 }), { nil: null }),
  }),
  fc.record({ t: fc.constant('anticipate' as const), amount: fc.integer({ min: 1, max: 40_000 }) }),
);

/** A rule list as the charge takes it: each recipient once, its cents scaled into the charge's amount. */
function splitOf(split: Rule[], recipients: string[], amount: number) {
  const seen = new Set<number>();
  const out = split
    .filter((r) => !seen.has(r.who) && seen.add(r.who))
    .map((r) => ({
      recipientId: recipients[r.who]!,
      amountCents: Math.max(1, Math.floor((amount * r.cents) / 1_000)),
      liable: r.liable,
    }));
  return out.length > 0 ? { split: out } : {};
}

async function run(m: TestMerchant, recipients: string[], ops: Op[]): Promise<void> {
  const sales: { uuid: string; card: boolean }[] = [];
  for (const o of ops) {
    switch (o.t) {
      case 'card':
      case 'pix': {
        const token =
          o.t === 'card'
            ? (
                await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
                  headers: { 'x-api-public-key': m.publicKey },
                  body: cardBody(cardEnding('0')),
                })
              ).body.token
            : null;
        const made = await call<{ uuid: string; status: string }>('POST', `${server.url}/api/transactions`, {
          headers: m.keys,
          body: saleInput({
            amount: o.amount,
            ...(o.t === 'card' && token
              ? { paymentMethod: 'CREDIT_CARD', installments: o.installments, card: { token } }
              : {}),
            ...splitOf(o.split, recipients, o.amount),
          }),
        });
        expect([201, 400], made.text).toContain(made.status);
        if (made.status !== 201) break;
        if (o.t === 'pix') expect((await moveTo(server, m, made.body.uuid, 'PAGO')).status).toBe(200);
        sales.push({ uuid: made.body.uuid, card: o.t === 'card' });
        break;
      }
      case 'refund': {
        const s = sales[o.pick % Math.max(1, sales.length)];
        if (!s) break;
        const r = await call<{
          refund?: {
            amountCents: number;
            feeReturnedCents: number;
            allocation: {
              amountCents: number;
              fromReceivableCents: number;
              fromAvailableCents: number;
            }[];
          };
        }>('POST', `${server.url}/api/transactions/${s.uuid}/refund`, {
          headers: m.keys,
          body: o.cents === null ? {} : { amountCents: o.cents },
        });
        expect([202, 409, 422], r.text).toContain(r.status);
        const made = r.body.refund;
        if (r.status === 202 && made) {
          const parts = made.allocation.reduce((sum, a) => sum + a.amountCents, 0);
          expect(parts + made.feeReturnedCents).toBe(made.amountCents);
          for (const a of made.allocation) {
            expect(a.fromReceivableCents + a.fromAvailableCents).toBe(a.amountCents);
            expect(a.fromReceivableCents).toBeGreaterThanOrEqual(0);
          }
        }
        break;
      }
      case 'dispute': {
        const s = sales[o.pick % Math.max(1, sales.length)];
        if (!s) break;
        const opened = await openDispute(server, m, s.uuid, {
          kind: s.card ? 'chargeback' : 'med',
          ...(o.cents === null ? {} : { amountCents: o.cents }),
        });
        // 400: more than the sale has left
        expect([201, 400, 409, 422], opened.text).toContain(opened.status);
        if (opened.status === 201) {
          expect((await decide(server, m, opened.body.id, o.outcome)).status).toBe(200);
        }
        break;
      }
      case 'anticipate': {
        const r = await call('POST', `${server.url}/api/anticipations`, {
          headers: m.keys,
          body: { amountCents: o.amount },
        });
        expect([201, 409, 422], r.text).toContain(r.status);
        break;
      }
    }
  }
}

/** Available balances below zero of holders no dispute entry touched: none may exist. */
async function negativeWithoutDispute(): Promise<unknown[]> {
  return db().query(
    `SELECT la.code, la.balance FROM ledger_accounts la
      WHERE la.bucket = 'available' AND la.balance < 0
        AND NOT EXISTS (SELECT 1 FROM postings p JOIN journal_entries e ON e.id = p.entry_id
                         WHERE p.ledger_account_id = la.id AND e.kind LIKE '%dispute%')`,
  );
}

it('keep every party’s balance equal to its postings and never below zero but by a dispute', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 3, maxLength: 10 }), async (ops) => {
      const m = await anticipatingMerchant(server, finance);
      const recipients = await Promise.all(
        ['Ana', 'Bia', 'Caio'].map(async (name) => (await createRecipient(server, m, { name })).id),
      );
      await run(m, recipients, ops);
      expect((await verifyLedger(db())).problems).toEqual([]);
      expect(await negativeWithoutDispute()).toEqual([]);
    }),
    { numRuns: 20 },
  );
  // every kind of entry a merchant's or a recipient's statement may show has its words there
  const kinds = await db().query<{ kind: string }>(
    `SELECT DISTINCT e.kind FROM journal_entries e JOIN postings p ON p.entry_id = e.id
       JOIN ledger_accounts la ON la.id = p.ledger_account_id
      WHERE la.account_id IS NOT NULL OR la.recipient_id IS NOT NULL`,
  );
  expect(kinds.map((k) => k.kind).filter((k) => !(k in ENTRY_DESCRIPTIONS))).toEqual([]);
}, 240_000);
