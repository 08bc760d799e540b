import type { Queryable } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import type { Queue } from '../platform/queue.js';
import { checkTransition, type SaleStatus } from './status-machine.js';
import { applyMoves, type Move, refusal, type TransitionResult } from './transition.js';
import type { SaleRow } from './types.js';

/** One reported status of one sale. */
export interface Settlement {
  /** The merchant the caller found the sale under. */
  accountId: number;
  saleId: number;
  status: SaleStatus;
  /** The callback's processor and signature, when it came signed: a replay of an applied one changes nothing. */
  signed?: { processor: string; signature: string };
}

/** Per settlement, in order: its result, or the AppError that refused it (nothing of it written). */
export type SettlementOutcome = TransitionResult | AppError;

/**
 * Status reports of distinct sales (of any merchants) in one transaction (the caller's), in a fixed number of
 * statements. Each is decided on its own against its sale as locked: a refused one writes nothing and does
 * not stop the others. The sales are locked first, in id order (two batches cannot deadlock); applyMoves
 * then updates each merchant's balance rows once, by the sum of its entries, as its last statement.
 */
export async function settleBatch(
  tx: Queryable,
  queue: Queue,
  items: Settlement[],
): Promise<SettlementOutcome[]> {
  const ids = items.map((i) => i.saleId);
  if (new Set(ids).size !== ids.length) throw new Error('a settlement batch takes one report per sale');
  const replays = await claimSignatures(tx, items);
  const rows = await tx.query<SaleRow>(
    'SELECT * FROM sales WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE',
    [ids],
  );
  const locked = new Map(rows.map((r) => [r.id, r]));
  const outcomes: (SettlementOutcome | Move)[] = items.map((item, i) => {
    const before = locked.get(item.saleId);
    if (!before || before.account_id !== item.accountId) {
      return new AppError('NOT_FOUND', `sale ${item.saleId} not found`);
    }
    const check = replays.has(i) ? 'same' : checkTransition(before.status, item.status);
    if (check === 'same') return { outcome: 'unchanged', sale: before };
    if (check === 'refused') return refusal(before.status, item.status);
    return { before, to: item.status };
  });
  const moves = outcomes.filter((o): o is Move => 'before' in o);
  const moved = await applyMoves(tx, queue, moves);
  return outcomes.map((o) => ('before' in o ? { outcome: 'applied', sale: moved[moves.indexOf(o)]! } : o));
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
