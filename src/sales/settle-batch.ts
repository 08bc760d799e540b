import { applyBalanceDeltas, BalanceDeltas, ensureMerchantLedger } from '../ledger/ledger.js';
import type { Queryable } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import type { Queue } from '../platform/queue.js';
import { checkTransition, type SaleStatus } from './status-machine.js';
import { moveLockedSale, refusal, type TransitionResult } from './transition.js';
import type { SaleRow } from './types.js';

/** One reported status of one sale of the batch's merchant. */
export interface Settlement {
  saleId: number;
  status: SaleStatus;
  /** The callback's processor and signature, when it came signed: a replay of an applied one changes nothing. */
  signed?: { processor: string; signature: string };
}

/** Per settlement, in order: its result, or the AppError that refused it (nothing of it written). */
export type SettlementOutcome = TransitionResult | AppError;

/**
 * Many status reports of one merchant's sales in one transaction (the caller's). Each is decided on its own,
 * in arrival order, against the sale as the earlier ones left it: a refused one writes nothing and does not
 * stop the others. The sales are locked first, in id order (so two batches cannot deadlock); the merchant's
 * balance rows are updated once, by the sum of every entry, as the last statement, so they stay locked for
 * the commit alone: that row is what every settlement of one merchant waits on.
 */
export async function settleBatch(
  tx: Queryable,
  queue: Queue,
  accountId: number,
  items: Settlement[],
): Promise<SettlementOutcome[]> {
  const replays = await claimSignatures(tx, items);
  const rows = await tx.query<SaleRow>(
    'SELECT * FROM sales WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE',
    [[...new Set(items.map((i) => i.saleId))]],
  );
  const current = new Map(rows.map((r) => [r.id, r]));
  const deltas = new BalanceDeltas();
  let ledgerEnsured = false;
  const outcomes: SettlementOutcome[] = [];
  for (const [i, item] of items.entries()) {
    const before = current.get(item.saleId);
    if (!before || before.account_id !== accountId) {
      outcomes.push(new AppError('NOT_FOUND', `sale ${item.saleId} not found`));
      continue;
    }
    if (replays.has(i)) {
      outcomes.push({ outcome: 'unchanged', sale: before });
      continue;
    }
    if (!ledgerEnsured) {
      // the postings of the entries name these rows before their balances move (see applyBalanceDeltas)
      await ensureMerchantLedger(tx, accountId);
      ledgerEnsured = true;
    }
    if (checkTransition(before.status, item.status) === 'refused') {
      outcomes.push(refusal(before.status, item.status));
      continue;
    }
    // anything thrown from here on fails the whole batch (the caller then runs its items one by one)
    const result = await moveLockedSale(tx, queue, before, item.status, deltas);
    current.set(item.saleId, result.sale);
    outcomes.push(result);
  }
  await applyBalanceDeltas(tx, deltas);
  return outcomes;
}

/**
 * Records the signed items' signatures in one statement; returns the indexes of replays (a signature already
 * recorded, or used by an earlier item of this batch). Rows past the freshness window are deleted by a periodic
 * cleanup (deleteStaleCallbacks).
 */
async function claimSignatures(tx: Queryable, items: Settlement[]): Promise<Set<number>> {
  const replays = new Set<number>();
  const signed = items.flatMap((item, i) => (item.signed ? [{ i, ...item.signed }] : []));
  if (signed.length === 0) return replays;
  // sorted: two batches inserting the same signatures wait on each other in one order, never in a cycle
  const unique = new Map(
    signed.map((s) => [`${s.processor}\n${s.signature}`, s] as const).sort(([a], [b]) => (a < b ? -1 : 1)),
  );
  const fresh = await tx.query<{ processor: string; signature: string }>(
    `INSERT INTO processor_callbacks (processor, signature)
     SELECT * FROM unnest($1::text[], $2::text[])
     ON CONFLICT DO NOTHING RETURNING processor, signature`,
    [[...unique.values()].map((s) => s.processor), [...unique.values()].map((s) => s.signature)],
  );
  const unclaimed = new Set(fresh.map((r) => `${r.processor}\n${r.signature}`));
  for (const s of signed) {
    const key = `${s.processor}\n${s.signature}`;
    if (unclaimed.has(key)) unclaimed.delete(key);
    else replays.add(s.i);
  }
  return replays;
}
