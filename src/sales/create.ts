import { randomUUID } from 'node:crypto';
import type { Queryable } from '../platform/db/db.js';
import { insertSale, type NewSaleRow } from './data.js';
import { type SaleFees, saleFees } from './fees.js';
import { countWithoutFact, notifySaleStatus } from './settlement/transition.js';
import type { SaleRow } from './types.js';

export type NewSale = Omit<NewSaleRow, 'uuid' | keyof SaleFees>;

/**
 * A processor reported a new sale: stored as PENDENTE, with fees from the account's settings. `notifyPending`
 * records sale.pending (a charge awaiting payment); a recurring debit that is already paid skips it.
 */
export async function createSale(
  tx: Queryable,
  input: NewSale,
  options: { notifyPending: boolean; uuid?: string },
): Promise<SaleRow> {
  const fees = await saleFees(tx, input.accountId, input.amount);
  // the API contract: shipping is for physical products only, null for digital ones (Sale object and notifications)
  const shipping = input.items.some((item) => item.tangible) ? input.shipping : null;
  const sale = await insertSale(tx, { ...input, shipping, ...fees, uuid: options.uuid ?? randomUUID() });
  if (options.notifyPending) await notifySaleStatus(tx, sale);
  else countWithoutFact(tx, sale);
  return sale;
}
