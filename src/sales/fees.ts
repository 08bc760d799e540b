import { type SaleFeeRates, saleFeeRates } from '../accounts/index.js';
import type { Queryable } from '../platform/db/db.js';
import { notFound, validation } from '../platform/errors/app-error.js';
import { percentOf } from '../platform/money/money.js';

export interface SaleFees {
  systemFee: number;
  netAmount: number;
  reserveAmount: number;
}

/** A card sale's fee rate depends on its installments (decisions.md, "Cards"). */
export interface CardTerms {
  installments: number;
}

/**
 * systemFee = amount × sale_fee_percent (half-up) + sale_fee_fixed; netAmount = amount − systemFee;
 * reserveAmount = amount × reserve_percent (half-up), never more than the net. A card sale's percent is
 * card_fee_percent (sale_fee_percent when unset) + card_installment_fee_percent × (installments − 1).
 */
export async function saleFees(
  q: Queryable,
  accountId: number,
  amount: number,
  card?: CardTerms,
): Promise<SaleFees> {
  const rates = await saleFeeRates(q, [accountId]);
  return feesAt(rates, accountId, amount, card);
}

/** saleFees of `amount` at the account's rates (the accounts module's saleFeeRates). */
export function feesAt(
  rates: ReadonlyMap<number, SaleFeeRates>,
  accountId: number,
  amount: number,
  card?: CardTerms,
): SaleFees {
  const acc = rates.get(Number(accountId));
  if (!acc) throw notFound(`account ${accountId} not found`);
  const percentE4 = card
    ? Number(acc.card_fee_percent_e4 ?? acc.sale_fee_percent_e4) +
      Number(acc.card_installment_fee_percent_e4) * (card.installments - 1)
    : acc.sale_fee_percent_e4;
  const systemFee = percentOf(amount, percentE4) + Number(acc.sale_fee_fixed);
  if (systemFee > amount) {
    throw validation(`amount ${amount} does not cover this account's sale fee of ${systemFee} cents`);
  }
  const netAmount = amount - systemFee;
  const reserveAmount = Math.min(percentOf(amount, acc.reserve_percent_e4), netAmount);
  return { systemFee, netAmount, reserveAmount };
}
