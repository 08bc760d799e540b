import { postEntry } from '../ledger/ledger.js';
import type { Db, Queryable } from '../platform/db.js';
import { AppError, conflict, notFound } from '../platform/errors.js';
import { lockSale } from './data.js';
import { type LedgerEffect, moneyOf, refundHold, refundRelease } from './ledger-effects.js';

/**
 * Before a merchant's refund request reaches the processor: the sale (still PAGO) holds what the refund will
 * take from available, in blocked (INSUFFICIENT_BALANCE if available cannot cover it: that money was already
 * withdrawn). A sale already held (a repeated request) holds nothing more.
 */
export async function holdForRefund(db: Db, saleId: number): Promise<void> {
  await db.tx(async (tx) => {
    const sale = await lockSale(tx, saleId);
    if (!sale) throw notFound(`sale ${saleId} not found`);
    if (sale.status !== 'PAGO') throw conflict(`a sale in status ${sale.status} cannot be refunded`);
    const effect = refundHold(moneyOf(sale));
    if (!effect) return;
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
