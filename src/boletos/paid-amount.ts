import type { Queryable } from '../platform/db/db.js';
import { type Discrepancy, recordPaymentDiscrepancies } from '../reconciliation/index.js';
import type { SaleRow, SaleStatus } from '../sales/index.js';
import { type PaymentAgain, setPaidAgainRule, setPaidAmountRule } from '../sales/index.js';
import { type BoletoRow, boletoOfSale } from './data.js';
import { amountDueOn, type BoletoTerms, lastPayableDay } from './terms.js';

export const termsOf = (b: BoletoRow): BoletoTerms => ({
  dueDate: b.due_date,
  daysAfterDue: b.days_after_due,
  fineBp: b.fine_bp,
  monthlyInterestBp: b.monthly_interest_bp,
  discount:
    b.discount_cents !== null && b.discount_until !== null
      ? { amountCents: b.discount_cents, untilDate: b.discount_until }
      : null,
});

/** What a boleto's payment on `day` must be, or null past its last payable day. */
export async function boletoAmountDue(tx: Queryable, sale: SaleRow, day: string): Promise<number | null> {
  const boleto = await boletoOfSale(tx, sale.id);
  if (!boleto) return sale.amount; // a sandbox sale made as BOLETO without an issued boleto
  const terms = termsOf(boleto);
  if (day > lastPayableDay(terms)) return null;
  return amountDueOn(boleto.amount, terms, day);
}

/** Statuses of a sale that was paid (later refunded or disputed included): another payment is a second one. */
const PAID: ReadonlySet<SaleStatus> = new Set(['PAGO', 'MED', 'CHARGEBACK', 'ESTORNADO']);

export const wasPaid = (status: SaleStatus) => PAID.has(status);

/** A second payment of a boleto (by Pix or by barcode): a discrepancy `duplicate_payment`; the payer is owed it. */
export const secondPayment = (boleto: BoletoRow, payment: PaymentAgain): Discrepancy => ({
  kind: 'duplicate_payment',
  e2eid: payment.reference,
  txid: boleto.txid,
  amount: payment.amount,
  detail: `boleto ${boleto.nosso_numero} paid again (${payment.detail}): not credited`,
});

/** A second payment of a boleto, recorded in the transaction that found it, once per payment (`reference`). */
export async function recordSecondPayment(
  tx: Queryable,
  boleto: BoletoRow,
  payment: PaymentAgain,
): Promise<void> {
  await recordPaymentDiscrepancies(tx, [secondPayment(boleto, payment)]);
}

/** The BOLETO rule for a payment of a sale already paid: recorded as a second payment when it had a boleto. */
export async function boletoPaidAgain(tx: Queryable, sale: SaleRow, payment: PaymentAgain): Promise<boolean> {
  if (!wasPaid(sale.status)) return false;
  const boleto = await boletoOfSale(tx, sale.id);
  if (!boleto) return false;
  await recordSecondPayment(tx, boleto, payment);
  return true;
}

/**
 * The sales module asks this module what a BOLETO sale's payment must be, and hands it a payment of a BOLETO
 * sale already paid (called once at start).
 */
export function installBoletoRules(): void {
  setPaidAmountRule('BOLETO', boletoAmountDue);
  setPaidAgainRule('BOLETO', boletoPaidAgain);
}
