import { type SaleFeeRates, saleFeeRates } from '../accounts/index.js';
import type { Queryable } from '../platform/db/db.js';
import { notFound, validation } from '../platform/errors/app-error.js';
import { percentOf } from '../platform/money/money.js';
import type { PaymentMethod } from './types.js';

/** The terms a sale's fee is computed with: a percent of what is paid plus fixed cents, fixed at creation. */
export interface FeeTerms {
  feePercentE4: number;
  feeFixed: number;
}

export interface SaleFees extends FeeTerms {
  systemFee: number;
  netAmount: number;
  reserveAmount: number;
}

/** What a sale's fee depends on: its method and, for a card, its installments (decisions.md, "Fee plans"). */
export interface FeeMethod {
  paymentMethod: PaymentMethod;
  installments?: number | null;
}

const isCard = (m: PaymentMethod) => m === 'CREDIT_CARD' || m === 'DEBIT_CARD';

/**
 * The fee terms of a sale of this method at the account's rates. On a plan: PIX its percent and fixed, BOLETO
 * its fixed, a credit card the percent of its installments' band (1, 2–6, 7–12), a debit card its percent.
 * Without one, the account's own columns: sale_fee_percent + sale_fee_fixed; a card's percent is
 * card_fee_percent (sale_fee_percent when unset) + card_installment_fee_percent × (installments − 1).
 */
export function feeTermsOf(rates: SaleFeeRates, method: FeeMethod): FeeTerms {
  const n = Math.max(1, method.installments ?? 1);
  const plan = rates.plan;
  if (plan) {
    switch (method.paymentMethod) {
      case 'BOLETO':
        return { feePercentE4: 0, feeFixed: plan.boleto_fixed };
      case 'CREDIT_CARD':
        return {
          feePercentE4:
            n === 1
              ? plan.credit_1_percent_e4
              : n <= 6
                ? plan.credit_2_6_percent_e4
                : plan.credit_7_12_percent_e4,
          feeFixed: 0,
        };
      case 'DEBIT_CARD':
        return { feePercentE4: plan.debit_percent_e4, feeFixed: 0 };
      default:
        return { feePercentE4: plan.pix_percent_e4, feeFixed: plan.pix_fixed };
    }
  }
  const percent = isCard(method.paymentMethod)
    ? Number(rates.card_fee_percent_e4 ?? rates.sale_fee_percent_e4) +
      Number(rates.card_installment_fee_percent_e4) * (n - 1)
    : Number(rates.sale_fee_percent_e4);
  return { feePercentE4: percent, feeFixed: Number(rates.sale_fee_fixed) };
}

/**
 * systemFee = amount × the terms' percent (half-up) + their fixed cents; netAmount = amount − systemFee;
 * reserveAmount = amount × reserve_percent (half-up), never more than the net.
 */
export async function saleFees(
  q: Queryable,
  accountId: number,
  amount: number,
  method: FeeMethod,
): Promise<SaleFees> {
  const rates = await saleFeeRates(q, [accountId]);
  return feesAt(rates, accountId, amount, method);
}

/** saleFees of `amount` at the account's rates (the accounts module's saleFeeRates). */
export function feesAt(
  rates: ReadonlyMap<number, SaleFeeRates>,
  accountId: number,
  amount: number,
  method: FeeMethod,
): SaleFees {
  const acc = rates.get(Number(accountId));
  if (!acc) throw notFound(`account ${accountId} not found`);
  return feesOnTerms(feeTermsOf(acc, method), acc.reserve_percent_e4, amount);
}

/** The fee of `amount` on terms already fixed (a sale's own, from its creation). */
export function feesOnTerms(terms: FeeTerms, reservePercentE4: number, amount: number): SaleFees {
  const systemFee = percentOf(amount, terms.feePercentE4) + terms.feeFixed;
  if (systemFee > amount) {
    throw validation(`amount ${amount} does not cover this account's sale fee of ${systemFee} cents`);
  }
  const netAmount = amount - systemFee;
  const reserveAmount = Math.min(percentOf(amount, reservePercentE4), netAmount);
  return { ...terms, systemFee, netAmount, reserveAmount };
}

/**
 * A sale's fee on another amount (a boleto paid with fine or discount, a card captured for less): on the terms
 * the sale was created with, whatever the account's plan is now; a sale made before terms were kept (null) is
 * priced at the account's rates as it is. The reserve is the account's current reserve percent.
 */
export function feesOfSale(
  rates: ReadonlyMap<number, SaleFeeRates>,
  sale: { account_id: number; payment_method: PaymentMethod; installments: number | null } & {
    fee_percent_e4: number | null;
    fee_fixed: number | null;
  },
  amount: number,
): SaleFees {
  const acc = rates.get(Number(sale.account_id));
  if (!acc) throw notFound(`account ${sale.account_id} not found`);
  const terms =
    sale.fee_percent_e4 === null || sale.fee_fixed === null
      ? feeTermsOf(acc, { paymentMethod: sale.payment_method, installments: sale.installments })
      : { feePercentE4: Number(sale.fee_percent_e4), feeFixed: Number(sale.fee_fixed) };
  return feesOnTerms(terms, acc.reserve_percent_e4, amount);
}
