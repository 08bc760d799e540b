import { randomUUID } from 'node:crypto';
import type { Queryable } from '../platform/db/db.js';
import { AppError, notFound, validation } from '../platform/http/errors.js';
import type { PublicId } from '../platform/http/public-ids.js';
import { percentOf } from '../platform/money/money.js';
import { findSaleJson, insertSale, type NewSaleRow } from './data.js';
import type { SaleSettler } from './settlement/settler.js';
import type { SaleStatus } from './settlement/status-machine.js';
import { countWithoutFact, notifySaleStatus, type TransitionResult } from './settlement/transition.js';
import type { SaleRow } from './types.js';

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
  // spec: shipping is for physical products only, null for digital ones (Sale object and notifications)
  const shipping = input.items.some((item) => item.tangible) ? input.shipping : null;
  const sale = await insertSale(tx, { ...input, shipping, ...fees, uuid: options.uuid ?? randomUUID() });
  if (options.notifyPending) await notifySaleStatus(tx, sale);
  else countWithoutFact(tx, sale);
  return sale;
}

/** A sale's JSON text for one account (the panel, refunds): another account's sale is 403 (spec), an unknown one 404. */
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

/**
 * What every processor callback runs: the sale named by the processor's own reference moves through the
 * status machine, in a transaction it may share with other settlements (settler.ts).
 */
export function applyProcessorStatus(
  settler: SaleSettler,
  processor: string,
  externalTransactionId: string,
  status: SaleStatus,
  /** The callback's signature, when it came signed: a replay of an applied one changes nothing. */
  signature?: string,
): Promise<TransitionResult> {
  return settler.settle({
    ref: { kind: 'processor', processor, externalTransactionId },
    status,
    ...(signature !== undefined ? { signature } : {}),
  });
}

/** How often applied callbacks past their signatures' freshness window are deleted (started with the workers). */
export const CALLBACK_CLEANUP_EVERY_MS = 60_000;

/** Deletes recorded callbacks older than 10 minutes: a replay that old already fails its timestamp check. */
export async function deleteStaleCallbacks(db: Queryable): Promise<number> {
  const rows = await db.query(
    `DELETE FROM processor_callbacks WHERE received_at < now() - interval '10 minutes' RETURNING 1`,
  );
  return rows.length;
}
