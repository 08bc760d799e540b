import type { Queryable } from '../platform/db/db.js';
import { type PaymentAgain, setOwedBackRecorder } from '../sales/index.js';
import { recordPaymentDiscrepancies } from './discrepancies.data.js';

/**
 * A payment the gateway takes no charge for (a Pix of a charge closed unpaid: cancelled, refused, failed; a Pix
 * Automático cycle the admission refused) credits nothing and is a discrepancy `closed_charge_paid`, once per
 * payment, in the transaction that met it: the payer is owed it back (docs/operations.md, "Reconciliation"). A
 * run that lists the Pix returned in full marks it resolved.
 */
export async function recordOwedBackPayment(
  tx: Queryable,
  payment: PaymentAgain & { txid: string | null },
): Promise<void> {
  await recordPaymentDiscrepancies(tx, [
    {
      kind: 'closed_charge_paid',
      e2eid: payment.reference,
      txid: payment.txid,
      amount: payment.amount,
      detail: payment.detail,
    },
  ]);
}

/** Installed with the other sale rules by every process that may credit a payment (sale-rules.ts). */
export function installReconciliationRules(): void {
  setOwedBackRecorder(recordOwedBackPayment);
}
