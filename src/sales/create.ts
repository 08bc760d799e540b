import { randomUUID } from 'node:crypto';
import { saleFeeRates } from '../accounts/index.js';
import type { Queryable } from '../platform/db/db.js';
import { insertSale, lockSale, type NewSaleRow, setSaleAmount } from './data.js';
import { feesOfSale, type SaleFees, saleFees } from './fees.js';
import { countWithoutFact, notifySaleStatus, refusal } from './settlement/transition.js';
import type { SaleRow } from './types.js';

export type NewSale = Omit<NewSaleRow, 'uuid' | keyof SaleFees>;

/**
 * A processor reported a new sale: stored as PENDENTE, with fees from the account's plan (or own rates) now. `notifyPending`
 * records sale.pending (a charge awaiting payment); a recurring debit that is already paid skips it.
 */
export async function createSale(
  tx: Queryable,
  input: NewSale,
  options: { notifyPending: boolean; uuid?: string },
): Promise<SaleRow> {
  const fees = await saleFees(tx, input.accountId, input.amount, input);
  // the API contract: shipping is for physical products only, null for digital ones (Sale object and notifications)
  const shipping = input.items.some((item) => item.tangible) ? input.shipping : null;
  const sale = await insertSale(tx, { ...input, shipping, ...fees, uuid: options.uuid ?? randomUUID() });
  if (options.notifyPending) await notifySaleStatus(tx, sale);
  else countWithoutFact(tx, sale);
  return sale;
}

/**
 * A card sale captured for less than it was authorized: its amount and fees become those of the captured
 * amount, in the caller's transaction, before it moves to PAGO. Only an open sale's amount changes.
 */
export async function captureLess(tx: Queryable, saleId: number, amount: number): Promise<void> {
  const sale = await lockSale(tx, saleId);
  if (!sale) return;
  if (sale.status !== 'EM_PROCESSAMENTO' && sale.status !== 'PENDENTE') throw refusal(sale.status, 'PAGO');
  if (amount === Number(sale.amount)) return;
  // priced on the terms the sale was created with: a plan changed since does not reach it
  const rates = await saleFeeRates(tx, [sale.account_id]);
  const fees = feesOfSale(rates, sale, amount);
  await setSaleAmount(tx, saleId, { amount, ...fees });
}
