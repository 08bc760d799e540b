import type { Queryable } from '../platform/db/db.js';
import { setPaidAmountRule } from '../sales/paid-amount.js';
import type { SaleRow } from '../sales/types.js';
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

/** The sales module asks this module what a BOLETO sale's payment must be (called once at start). */
export function installBoletoRules(): void {
  setPaidAmountRule('BOLETO', boletoAmountDue);
}
