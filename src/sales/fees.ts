import type { Queryable } from '../platform/db/db.js';
import { notFound, validation } from '../platform/http/errors.js';
import { percentOf } from '../platform/money/money.js';

export interface SaleFees {
  systemFee: number;
  netAmount: number;
  reserveAmount: number;
}

/**
 * systemFee = amount × sale_fee_percent (half-up) + sale_fee_fixed; netAmount = amount − systemFee;
 * reserveAmount = amount × reserve_percent (half-up), never more than the net.
 */
export async function saleFees(q: Queryable, accountId: number, amount: number): Promise<SaleFees> {
  const rates = await feeRates(q, [accountId]);
  return feesAt(rates, accountId, amount);
}

/** An account's sale fee and reserve rates. */
export interface FeeRates {
  sale_fee_percent_e4: number;
  sale_fee_fixed: number;
  reserve_percent_e4: number;
}

/** The rates of these accounts, in one read (a batch of sales of several merchants). */
export async function feeRates(q: Queryable, accountIds: number[]): Promise<Map<number, FeeRates>> {
  const rows = await q.query<FeeRates & { id: number }>(
    'SELECT id, sale_fee_percent_e4, sale_fee_fixed, reserve_percent_e4 FROM accounts WHERE id = ANY($1::bigint[])',
    [[...new Set(accountIds)]],
  );
  return new Map(rows.map(({ id, ...rates }) => [Number(id), rates]));
}

/** saleFees of `amount` at the account's rates read by feeRates. */
export function feesAt(rates: ReadonlyMap<number, FeeRates>, accountId: number, amount: number): SaleFees {
  const acc = rates.get(Number(accountId));
  if (!acc) throw notFound(`account ${accountId} not found`);
  const systemFee = percentOf(amount, acc.sale_fee_percent_e4) + acc.sale_fee_fixed;
  if (systemFee > amount) {
    throw validation(`amount ${amount} does not cover this account's sale fee of ${systemFee} cents`);
  }
  const netAmount = amount - systemFee;
  const reserveAmount = Math.min(percentOf(amount, acc.reserve_percent_e4), netAmount);
  return { systemFee, netAmount, reserveAmount };
}
