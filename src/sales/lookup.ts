import type { Queryable } from '../platform/db/db.js';
import { AppError, notFound } from '../platform/errors/app-error.js';
import type { PublicId } from '../platform/ids/public-ids.js';
import { findSaleJson } from './data.js';

/** A sale's JSON text for one account (the panel, refunds): another account's sale is 403 (the API contract), an unknown one 404. */
export async function saleForAccount(q: Queryable, accountId: number, id: PublicId): Promise<string> {
  return ownedSaleBody(await findSaleJson(q, id), accountId);
}

/** A looked-up sale for the account asking: 404 when there is none, 403 when another account owns it. */
export function ownedSale<T extends { account_id: number }>(
  sale: T | null | undefined,
  accountId: number,
): T {
  if (!sale) throw notFound('Sale not found');
  if (sale.account_id !== accountId) throw new AppError('FORBIDDEN', 'Sale belongs to another account');
  return sale;
}

/** A looked-up sale's JSON for the account asking (ownedSale's answers). */
export function ownedSaleBody(
  sale: { account_id: number; body: string } | null | undefined,
  accountId: number,
): string {
  return ownedSale(sale, accountId).body;
}

/** The Sale object (JSON text) of a sale the caller already holds. */
export async function saleJson(q: Queryable, saleId: number): Promise<string> {
  const sale = await findSaleJson(q, { kind: 'numeric', id: saleId });
  if (!sale) throw notFound('Sale not found');
  return sale.body;
}
