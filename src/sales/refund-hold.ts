import { postEntry } from '../ledger/ledger.js';
import type { Db, Queryable } from '../platform/db.js';
import { AppError, conflict, notFound } from '../platform/errors.js';
import { lockSale } from './data.js';
import { type LedgerEffect, moneyOf, refundHold, refundRelease } from './ledger-effects.js';

/**
 * Before a merchant's refund request reaches the processor: the sale (still PAGO) holds what the refund will
 * take from available, in blocked (INSUFFICIENT_BALANCE if available cannot cover it: that money was already
 * withdrawn). A sale already held (a repeated request) holds nothing more. True when this call made the hold.
 */
export async function holdForRefund(db: Db, saleId: number): Promise<boolean> {
  return db.tx(async (tx) => {
    const sale = await lockSale(tx, saleId);
    if (!sale) throw notFound(`sale ${saleId} not found`);
    if (sale.status !== 'PAGO') throw conflict(`a sale in status ${sale.status} cannot be refunded`);
    const effect = refundHold(moneyOf(sale));
    if (!effect) return false;
    await write(tx, saleId, effect, true).catch((err: unknown) => {
      if (!(err instanceof AppError) || err.code !== 'INSUFFICIENT_BALANCE') throw err;
      // the refund routes answer shape D, whatever the code's usual (cashout) shape
      throw new AppError(
        'INSUFFICIENT_BALANCE',
        'The available balance does not cover this refund: its money has already been withdrawn',
        {},
        'D',
      );
    });
    return true;
  });
}

/** The processor did not make the refund: what was held goes back (nothing if the sale holds nothing). */
export async function releaseRefundHold(db: Db, saleId: number): Promise<void> {
  await db.tx(async (tx) => {
    const sale = await lockSale(tx, saleId);
    if (!sale) return;
    const effect = refundRelease(moneyOf(sale), sale.status);
    if (effect) await write(tx, saleId, effect, false);
  });
}

async function write(tx: Queryable, saleId: number, effect: LedgerEffect, guard: boolean): Promise<void> {
  await postEntry(tx, {
    kind: effect.kind,
    refType: 'sale',
    refId: saleId,
    postings: effect.postings,
    guardAvailable: guard,
  });
  await tx.query('UPDATE sales SET refund_held = $2, updated_at = now() WHERE id = $1', [
    saleId,
    effect.refundHeld,
  ]);
}

/** How often held refunds are looked at, and how long a hold may go unanswered before it counts as forgotten. */
export const FORGOTTEN_HOLD_CHECK_EVERY_MS = 60_000;
export const FORGOTTEN_HOLD_AFTER_MS = 10 * 60_000;

/**
 * Gives back holds no refund is under way for: held over FORGOTTEN_HOLD_AFTER_MS with no attempt in progress
 * at a processor that records its attempts (bcb: an attempt the PSP does not know ends as never made first,
 * checkDevolucoes). What leaves a hold behind is a crash between the hold's commit and the processor's request,
 * or a sandbox refund whose answer was lost with its process. Returns how many were released.
 */
export async function releaseForgottenHolds(db: Db): Promise<number> {
  const rows = await db.query<{ id: number }>(
    `SELECT s.id FROM sales s
      WHERE s.refund_held AND s.updated_at < now() - make_interval(secs => $1)
        AND NOT EXISTS (SELECT 1 FROM bcb_devolucoes d
                         WHERE d.sale_id = s.id AND d.requested AND d.status = 'EM_PROCESSAMENTO')
      ORDER BY s.updated_at LIMIT 100`,
    [FORGOTTEN_HOLD_AFTER_MS / 1000],
  );
  for (const { id } of rows) await releaseRefundHold(db, id);
  return rows.length;
}
