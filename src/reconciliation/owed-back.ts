import type { Queryable } from '../platform/db/db.js';
import { type PaymentAgain, type SaleRow, setClosedPaymentRecorder } from '../sales/index.js';
import { recordPaymentDiscrepancies } from './discrepancies.data.js';

/**
 * A payment of a charge closed unpaid (cancelled, refused, failed: a Pix of its cob or cobv) credits nothing and
 * is a discrepancy `closed_charge_paid`, once per payment, in the transaction that met it: the payer is owed it
 * back (docs/operations.md, "Reconciliation"). A run that lists the Pix returned in full marks it resolved.
 */
export async function recordClosedChargePaid(
  tx: Queryable,
  sale: SaleRow,
  payment: PaymentAgain,
): Promise<void> {
  await recordPaymentDiscrepancies(tx, [
    {
      kind: 'closed_charge_paid',
      e2eid: payment.reference,
      txid: sale.external_transaction_id,
      amount: payment.amount,
      detail: `sale ${sale.uuid} is ${sale.status} (${payment.detail}): not credited`,
    },
  ]);
}

/** Installed with the other sale rules by every process that may credit a payment (sale-rules.ts). */
export function installReconciliationRules(): void {
  setClosedPaymentRecorder(recordClosedChargePaid);
}
