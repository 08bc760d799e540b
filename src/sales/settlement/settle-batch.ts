import { type Queryable, sqlLiteral } from '../../platform/db/db.js';
import { AppError, notFound } from '../../platform/errors/app-error.js';
import { isUuid, type PublicId } from '../../platform/ids/public-ids.js';
import type { Queue } from '../../platform/jobs/queue.js';
import type { SaleRow } from '../types.js';
import { checkTransition, isDispute, type SaleStatus } from './status-machine.js';
import { applyMoves, type Move, refusal, type TransitionResult } from './transition.js';

/** How a report names its sale: the public id (a merchant's own sale), or the processor's reference. */
export type SaleRef = PublicId | { kind: 'processor'; processor: string; externalTransactionId: string };

/** One reported status of one sale. */
export interface Settlement {
  ref: SaleRef;
  /** Only a sale of this merchant (else 404, as if it did not exist). */
  accountId?: number;
  status: SaleStatus;
  /** The callback's signature, when it came signed: a replay of an applied one changes nothing. */
  signature?: string;
  /**
   * Statuses this report is refused from (409, nothing written), decided against the sale as locked: the
   * sandbox's ESTORNADO of a sale that became PAGO meanwhile is a refund, made by the refund's own door.
   */
  notFrom?: { statuses: readonly SaleStatus[]; refusal: () => AppError };
}

/**
 * Per settlement, in order: its result; the AppError that refused it (nothing of it written); or 'again'
 * when an earlier report of this batch named the same sale (by another ref): it belongs in the next batch.
 */
export type SettlementOutcome = TransitionResult | AppError | 'again';

export const refKey = (ref: SaleRef): string =>
  ref.kind === 'processor'
    ? `p\n${ref.processor}\n${ref.externalTransactionId}`
    : ref.kind === 'uuid'
      ? `u\n${ref.uuid}`
      : `n\n${ref.id}`;

/**
 * Status reports of distinct sales (of any merchants) in one transaction (the caller's), in a fixed number of
 * statements: the sales are found and locked in one (id order: two batches cannot deadlock), signatures
 * claimed in one, and applyMoves writes every move in one (and the balance rows in one more, with the COMMIT
 * when the caller passes `atCommit`). Each report is decided on its own against its
 * sale as locked: a refused one writes nothing and does not stop the others.
 */
export async function settleBatch(
  tx: Queryable,
  queue: Queue,
  items: Settlement[],
  atCommit?: (statement: string) => void,
): Promise<SettlementOutcome[]> {
  const rows = await lockSales(
    tx,
    items.map((i) => i.ref),
  );
  const byKey = new Map<string, SaleRow>();
  for (const r of rows) {
    byKey.set(`n\n${r.id}`, r);
    byKey.set(`u\n${r.uuid}`, r);
    byKey.set(`p\n${r.processor}\n${r.external_transaction_id}`, r);
  }
  const taken = new Set<number>();
  const found = items.map((item): SaleRow | AppError | 'again' => {
    const sale = byKey.get(refKey(item.ref));
    if (!sale || (item.accountId !== undefined && sale.account_id !== item.accountId)) {
      return item.ref.kind === 'processor'
        ? notFound(
            `no ${item.ref.processor} sale with externalTransactionId ${item.ref.externalTransactionId}`,
          )
        : notFound('Sale not found');
    }
    if (taken.has(sale.id)) return 'again';
    taken.add(sale.id);
    return sale;
  });
  const replays = await claimSignatures(tx, items, found);
  const disputed = await withOpenDispute(
    tx,
    items.flatMap((item, i) => {
      const before = found[i]!;
      return typeof before === 'object' &&
        !(before instanceof AppError) &&
        isDispute(before.status) &&
        before.status !== item.status
        ? [before.id]
        : [];
    }),
  );
  const outcomes: (SettlementOutcome | Move)[] = items.map((item, i) => {
    const before = found[i]!;
    if (before === 'again' || before instanceof AppError) return before;
    const check = replays.has(i) ? 'same' : checkTransition(before.status, item.status);
    if (check === 'same') return { outcome: 'unchanged', sale: before };
    if (check === 'refused') return refusal(before.status, item.status);
    if (item.notFrom?.statuses.includes(before.status)) return item.notFrom.refusal();
    if (disputed.has(before.id)) {
      return new AppError(
        'CONFLICT',
        `this sale is ${before.status} by an open dispute: the dispute's outcome decides it (won: PAGO; lost: the disputed amount returned)`,
      );
    }
    return { before, to: item.status };
  });
  const moves = outcomes.filter((o): o is Move => typeof o === 'object' && 'before' in o);
  const moved = await applyMoves(tx, queue, moves, atCommit);
  return outcomes.map((o) =>
    typeof o === 'object' && 'before' in o ? { outcome: 'applied', sale: moved[moves.indexOf(o)]! } : o,
  );
}

const openDisputeRules: string[] = [];

/**
 * The disputes module installs the SQL condition that a sale `s` has an open dispute of its own (its amount held
 * by the dispute's entries, not the sale's): such a sale leaves MED or CHARGEBACK only through that dispute's
 * outcome, never by a processor's status report (which would move the sale's whole net and leave the dispute's
 * own share behind). Installed once per process with the other sale rules (sale-rules.ts).
 */
export function setOpenDisputeRule(condition: string): void {
  if (!openDisputeRules.includes(condition)) openDisputeRules.push(condition);
}

/** Which of these sales (locked by the caller) have an open dispute, by the rules installed. */
async function withOpenDispute(tx: Queryable, saleIds: number[]): Promise<Set<number>> {
  if (saleIds.length === 0 || openDisputeRules.length === 0) return new Set();
  const rows = await tx.query<{ id: number }>(
    `SELECT s.id FROM sales s WHERE s.id = ANY($1::bigint[]) AND (${openDisputeRules.join(' OR ')})`,
    [saleIds],
  );
  return new Set(rows.map((r) => Number(r.id)));
}

/**
 * The named sales, locked, in one statement: each kind of ref by its own unique index, in id order. Its values
 * are written into its text (ids and uuids as checked by parsePublicId, processor references through the
 * driver's escapeLiteral), so it needs no parameters and travels with the transaction's BEGIN in one round
 * trip (Db.txEndingWith).
 */
async function lockSales(tx: Queryable, refs: SaleRef[]): Promise<SaleRow[]> {
  const ids: string[] = [];
  const uuids: string[] = [];
  const pairs: string[] = [];
  for (const ref of refs) {
    if (ref.kind === 'numeric') {
      if (!Number.isSafeInteger(ref.id)) throw new Error('sale ids are integers');
      ids.push(String(ref.id));
    } else if (ref.kind === 'uuid') {
      if (!isUuid(ref.uuid)) throw new Error('not a uuid');
      uuids.push(`'${ref.uuid}'`);
    } else if (!`${ref.processor}${ref.externalTransactionId}`.includes('\u0000')) {
      // (text holding a NUL names no sale: PostgreSQL text cannot hold one, and would refuse the statement)
      pairs.push(`(${sqlLiteral(ref.processor)}, ${sqlLiteral(ref.externalTransactionId)})`);
    }
  }
  if (ids.length + uuids.length + pairs.length === 0) return [];
  // ids alone need no subquery; otherwise each kind of ref through its own unique index
  const which =
    uuids.length + pairs.length === 0
      ? ids.join(', ')
      : [
          ...(ids.length ? [`SELECT id FROM sales WHERE id IN (${ids.join(', ')})`] : []),
          ...(uuids.length ? [`SELECT id FROM sales WHERE uuid IN (${uuids.join(', ')})`] : []),
          ...(pairs.length
            ? [
                `SELECT s.id FROM sales s JOIN (VALUES ${pairs.join(', ')}) AS r(processor, external_transaction_id)
                   ON s.processor = r.processor AND s.external_transaction_id = r.external_transaction_id`,
              ]
            : []),
        ].join(' UNION ');
  return tx.query<SaleRow>(`SELECT * FROM sales WHERE id IN (${which}) ORDER BY id FOR UPDATE`);
}

/**
 * Records the signatures of the signed reports this batch decides, in one statement (after the sales are
 * locked: reports signed alike name the same sale, so they wait on its lock first); returns the indexes of
 * replays (a signature already recorded, or used by an earlier report of this batch). Rows past the
 * freshness window are deleted by a periodic cleanup (deleteStaleCallbacks).
 */
async function claimSignatures(
  tx: Queryable,
  items: Settlement[],
  found: (SaleRow | AppError | 'again')[],
): Promise<Set<number>> {
  const replays = new Set<number>();
  const signed = items.flatMap((item, i) =>
    item.signature !== undefined &&
    item.ref.kind === 'processor' &&
    typeof found[i] === 'object' &&
    !(found[i] instanceof AppError)
      ? [{ i, processor: item.ref.processor, signature: item.signature }]
      : [],
  );
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
