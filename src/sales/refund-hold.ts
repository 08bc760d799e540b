import { postEntry } from '../ledger/ledger.js';
import type { Db } from '../platform/db.js';
import { lockSale } from './data.js';
import { type LedgerEffect, moneyOf, refundHold, refundRelease } from './ledger-effects.js';
import type { SaleRow } from './types.js';

/**
 * Holds a PAGO sale's net in blocked while its refund is at the processor (before the processor is asked):
 * a merchant cannot withdraw money that is on its way back to the payer. Idempotent.
 */
export function holdForRefund(db: Db, saleId: number): Promise<boolean> {
  return applyHoldEffect(db, saleId, (sale) => {
    const effect = refundHold(moneyOf(sale), sale.status);
    return effect && { effect, hold: -effect.postings[0]!.amount };
  });
}

/** The processor did not refund (refused, failed, NAO_REALIZADO): the held net is free again. Idempotent. */
export function releaseRefundHold(db: Db, saleId: number): Promise<boolean> {
  return applyHoldEffect(db, saleId, (sale) => {
    const effect = refundRelease(moneyOf(sale), sale.status);
    return effect && { effect, hold: 0 };
  });
}

async function applyHoldEffect(
  db: Db,
  saleId: number,
  decide: (sale: SaleRow) => { effect: LedgerEffect; hold: number } | null,
): Promise<boolean> {
  return db.tx(async (tx) => {
    const sale = await lockSale(tx, saleId);
    const decided = sale && decide(sale);
    if (!sale || !decided) return false;
    const { effect, hold } = decided;
    if (effect.postings.length > 0) {
      await postEntry(tx, { kind: effect.kind, refType: 'sale', refId: sale.id, postings: effect.postings });
    }
    await tx.query('UPDATE sales SET refund_hold = $2, updated_at = now() WHERE id = $1', [sale.id, hold]);
    return true;
  });
}
