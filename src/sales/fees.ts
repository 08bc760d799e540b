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
  const [acc] = await q.query<{
    sale_fee_percent_e4: number;
    sale_fee_fixed: number;
    reserve_percent_e4: number;
  }>('SELECT sale_fee_percent_e4, sale_fee_fixed, reserve_percent_e4 FROM accounts WHERE id = $1', [
    accountId,
  ]);
  if (!acc) throw notFound(`account ${accountId} not found`);
  const systemFee = percentOf(amount, acc.sale_fee_percent_e4) + acc.sale_fee_fixed;
  if (systemFee > amount) {
    throw validation(`amount ${amount} does not cover this account's sale fee of ${systemFee} cents`);
  }
  const netAmount = amount - systemFee;
  const reserveAmount = Math.min(percentOf(amount, acc.reserve_percent_e4), netAmount);
  return { systemFee, netAmount, reserveAmount };
}
