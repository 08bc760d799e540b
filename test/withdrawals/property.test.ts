import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { getBalance } from '../../src/ledger/ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { AppError } from '../../src/platform/errors/app-error.js';
import { runBatch, WithdrawalCreator } from '../../src/withdrawals/creation/creator.js';
import { requestHash } from '../../src/withdrawals/request.js';
import { type Transition, transition } from '../../src/withdrawals/state.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { fundMerchant } from '../support/ledger.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
const merchants: TestMerchant[] = [];

beforeAll(async () => {
  server = await startServer({ workers: false });
  for (let i = 0; i < 2; i++) merchants.push(await createMerchant(server));
});
afterAll(() => server?.close());

type Op =
  | { kind: 'credit'; merchant: number; cents: number }
  | { kind: 'cashout'; merchant: number; cents: number }
  | { kind: Transition; pick: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('credit' as const),
    merchant: fc.nat(1),
    cents: fc.integer({ min: 1, max: 30_000 }),
  }),
  fc.record({
    kind: fc.constant('cashout' as const),
    merchant: fc.nat(1),
    cents: fc.integer({ min: 10_000, max: 25_000 }),
  }),
  fc.record({
    kind: fc.constantFrom<Transition>('submit', 'complete', 'reject', 'cancel'),
    pick: fc.nat(1000),
  }),
);

it('keeps the ledger balanced and total = available + blocked under random interleavings', async () => {
  const { db, queue } = server.runtime.platform;
  const creator = new WithdrawalCreator(db, queue);
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.array(op, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 6 }),
      async (batches) => {
        const ids: number[] = [];
        for (const batch of batches) {
          // each batch runs concurrently: real interleavings in the database
          await Promise.all(
            batch.map(async (o) => {
              if (o.kind === 'credit') return fundMerchant(db, merchants[o.merchant]!.accountId, o.cents);
              if (o.kind === 'cashout') {
                try {
                  const req = { amountCents: o.cents, pixKey: '52998224725', pixKeyType: 'CPF' as const };
                  const accountId = merchants[o.merchant]!.accountId;
                  // merchant 0 through shared transactions (as HTTP does), merchant 1 one transaction each
                  const outcome =
                    o.merchant === 0
                      ? await creator.create(accountId, req, null)
                      : (
                          await runBatch(db, queue, accountId, [{ req, key: null, hash: requestHash(req) }])
                        )[0]!;
                  if (outcome instanceof AppError) throw outcome;
                  ids.push(outcome.withdrawal.id);
                } catch (err) {
                  if (!(err instanceof AppError) || err.code !== 'INSUFFICIENT_BALANCE') throw err;
                }
                return;
              }
              if (ids.length === 0) return;
              const id = ids[o.pick % ids.length]!;
              await db.tx((tx) => transition(tx, id, o.kind, o.kind === 'submit' ? `ext-${id}` : null));
            }),
          );
        }
        const report = await verifyLedger(db);
        expect(report.problems).toEqual([]);
        for (const m of merchants) {
          const balance = await getBalance(db, m.accountId);
          expect(balance.available).toBeGreaterThanOrEqual(0);
          expect(balance.total).toBe(balance.available + balance.blocked);
          const [sums] = await db.query<{ open: number; credited: number; completed: number }>(
            `SELECT
             (SELECT COALESCE(sum(amount), 0) FROM withdrawals WHERE account_id = $1 AND status IN ('PENDING', 'PROCESSING'))::bigint AS open,
             (SELECT COALESCE(sum(amount), 0) FROM withdrawals WHERE account_id = $1 AND status = 'COMPLETED')::bigint AS completed,
             (SELECT COALESCE(sum(p.amount), 0) FROM postings p JOIN journal_entries e ON e.id = p.entry_id
                JOIN ledger_accounts la ON la.id = p.ledger_account_id
               WHERE e.kind = 'test.fund' AND la.account_id = $1)::bigint AS credited`,
            [m.accountId],
          );
          expect(balance.blocked).toBe(sums!.open);
          expect(balance.total).toBe(sums!.credited - sums!.completed);
        }
        // notifications: one fact per status change, never two for the same change of one withdrawal
        const [facts] = await db.query<{ n: number; distinct_facts: number; changes: number }>(
          `SELECT count(*)::int AS n, count(DISTINCT (subject_id, event_type))::int AS distinct_facts,
                (SELECT count(*) FROM journal_entries WHERE kind IN ('withdrawal.complete', 'withdrawal.reject', 'withdrawal.cancel'))::int
                  + (SELECT count(*) FROM withdrawals WHERE external_id IS NOT NULL)::int AS changes
           FROM notification_events WHERE subject_type = 'withdrawal'`,
        );
        expect(facts!.distinct_facts).toBe(facts!.n);
        expect(facts!.n).toBe(facts!.changes);
      },
    ),
    { numRuns: 25 },
  );
  const out = await import('../support/cli.js').then(({ runGateway }) =>
    runGateway(['ledger', 'verify', '--json'], server.env),
  );
  expect(out.code).toBe(0);
});
