import { postEntry } from '../../ledger/index.js';
import type { Db, Queryable } from '../../platform/db/db.js';
import { AppError, conflict, notFound } from '../../platform/errors/app-error.js';
import { lockSale, REFUND_UNDER_WAY, setRefundHeld, untouchedFor } from '../data.js';
import type { SaleRow } from '../types.js';
import { type LedgerEffect, moneyOf, refundHold, refundRelease } from './ledger-effects.js';
import { isDispute } from './status-machine.js';

/*
 * Every decision about a sale's refund hold is taken in a transaction that has locked the sale's row first:
 * holding, claiming a processor attempt under the hold, ending an attempt, giving the money back. Checked
 * and acted on under one lock, a retry cannot slip an attempt in between "no refund is under way" and the
 * release that frees its money.
 */

/**
 * Before a merchant's refund request reaches the processor: the sale (still PAGO) holds what the refund will
 * take from available, in blocked (INSUFFICIENT_BALANCE if available cannot cover it: that money was already
 * withdrawn). A sale already held (a repeated request) holds nothing more, but counts as recently asked. True
 * when this call made the hold.
 */
export async function holdForRefund(db: Db, saleId: number): Promise<boolean> {
  return db.tx(async (tx) => {
    const sale = await lockSale(tx, saleId);
    if (!sale) throw notFound(`sale ${saleId} not found`);
    if (sale.status !== 'PAGO') throw conflict(`a sale in status ${sale.status} cannot be refunded`);
    return holdLocked(tx, sale);
  });
}

/**
 * The hold of a sale the caller has locked, made if missing (a processor claiming a new attempt calls this in
 * the claim's transaction: an attempt is never made without its money held). In a dispute the whole net is
 * blocked already: only the flag is set. True when this call made the hold.
 */
export async function holdLocked(tx: Queryable, sale: SaleRow): Promise<boolean> {
  if (sale.refund_held) {
    await setRefundHeld(tx, sale.id, true); // asked again: not a forgotten hold
    return false;
  }
  if (sale.status !== 'PAGO' && !isDispute(sale.status)) {
    throw conflict(`a sale in status ${sale.status} cannot be refunded`);
  }
  const effect = refundHold(moneyOf(sale), sale.status);
  if (!effect) return false;
  await write(tx, sale.id, effect, true).catch((err: unknown) => {
    if (!(err instanceof AppError) || err.code !== 'INSUFFICIENT_BALANCE') throw err;
    throw new AppError(
      'INSUFFICIENT_BALANCE',
      'The available balance does not cover this refund: its money has already been withdrawn',
    );
  });
  return true;
}

/**
 * Gives back what a sale holds for a refund, unless a refund of it is still under way at its processor (an
 * attempt in progress, or one made that the sale has not caught up with yet). `idleFor`: only if nothing
 * touched the sale for that long.
 */
export async function releaseRefundHold(db: Db, saleId: number, idleFor?: number): Promise<boolean> {
  return db.tx(async (tx) => {
    const sale = await lockSale(tx, saleId);
    if (!sale) return false;
    return releaseLocked(tx, sale, idleFor);
  });
}

export async function releaseLocked(tx: Queryable, sale: SaleRow, idleFor?: number): Promise<boolean> {
  if (!sale.refund_held) return false;
  if (idleFor !== undefined && !(await untouchedFor(tx, sale.id, idleFor / 1000))) return false;
  if (await refundUnderWay(tx, sale.id)) return false;
  const effect = refundRelease(moneyOf(sale), sale.status);
  if (!effect) return false;
  await write(tx, sale.id, effect, false);
  return true;
}

/** Whether a refund of the sale is under way (data.ts REFUND_UNDER_WAY; checkDevolucoes finishes a made one). */
async function refundUnderWay(tx: Queryable, saleId: number): Promise<boolean> {
  const [row] = await tx.query<{ under_way: boolean }>(
    `SELECT ${REFUND_UNDER_WAY} AS under_way FROM sales s WHERE s.id = $1`,
    [saleId],
  );
  return row?.under_way === true;
}

async function write(tx: Queryable, saleId: number, effect: LedgerEffect, guard: boolean): Promise<void> {
  await postEntry(tx, {
    kind: effect.kind,
    refType: 'sale',
    refId: saleId,
    postings: effect.postings,
    guardAvailable: guard,
  });
  await setRefundHeld(tx, saleId, effect.refundHeld);
}

/** How often held refunds are looked at, and how long a hold may go unanswered before it counts as forgotten. */
export const FORGOTTEN_HOLD_CHECK_EVERY_MS = 60_000;
export const FORGOTTEN_HOLD_AFTER_MS = 10 * 60_000;

/**
 * Gives back holds no refund is under way for, untouched for FORGOTTEN_HOLD_AFTER_MS: what leaves one behind is
 * a crash between the hold's commit and the processor's request, or a sandbox refund whose answer was lost with
 * its process. Each is decided again under the sale's lock. Returns how many were released.
 */
export async function releaseForgottenHolds(db: Db): Promise<number> {
  const rows = await db.query<{ id: number }>(
    // those with a refund under way are left out here too (not only under the lock below): otherwise 100 of
    // them, the oldest, would fill every round and keep a forgotten hold behind them waiting
    `SELECT s.id FROM sales s
      WHERE s.refund_held AND s.updated_at < now() - make_interval(secs => $1) AND NOT ${REFUND_UNDER_WAY}
      ORDER BY s.updated_at LIMIT 100`,
    [FORGOTTEN_HOLD_AFTER_MS / 1000],
  );
  let released = 0;
  for (const { id } of rows) if (await releaseRefundHold(db, id, FORGOTTEN_HOLD_AFTER_MS)) released++;
  return released;
}
