import type { Queryable } from '../platform/db/db.js';
import { notFound } from '../platform/errors/app-error.js';
import type { PublicId } from '../platform/ids/public-ids.js';
import type { Queue } from '../platform/jobs/queue.js';
import { findSaleRow } from './charges.data.js';
import { lockSale } from './data.js';
import { pendingAmount } from './refunds/refunds.data.js';
import { disputeClaims, ledgerEffect, moneyOf } from './settlement/ledger-effects.js';
import { isDispute, type SaleStatus } from './settlement/status-machine.js';
import { moveSale, refusal } from './settlement/transition.js';
import type { Holder } from './split.js';
import type { SaleRow } from './types.js';

/** What the disputes module needs of a sale it disputes. */
export interface DisputedSale {
  id: number;
  uuid: string;
  accountId: number;
  status: SaleStatus;
  paymentMethod: string;
  /** What the payer paid (a boleto's paid amount, else the sale's amount). */
  amount: number;
  /** In a dispute status, what of the sale's net it keeps in blocked (what losing it takes out); else 0. */
  heldNet: number;
  /** heldNet party by party (a split sale's liable parties; the merchant alone otherwise); empty outside one. */
  heldParts: { holder: Holder; amount: number }[];
  /** What a dispute may still claim: what the payer paid less the refunds made or in progress. */
  disputable: number;
}

function disputedSale(s: SaleRow, refunding: number): DisputedSale {
  const heldParts = isDispute(s.status) ? disputeClaims(moneyOf(s)).filter((c) => c.amount !== 0) : [];
  const heldNet = heldParts.reduce((sum, c) => sum + c.amount, 0);
  return {
    id: s.id,
    uuid: s.uuid,
    accountId: s.account_id,
    status: s.status,
    paymentMethod: s.payment_method,
    amount: moneyOf(s).amount,
    heldNet,
    heldParts,
    disputable: Math.max(0, moneyOf(s).amount - s.refunded_amount - refunding),
  };
}

/** A sale by its public id, locked for the caller's transaction; null when there is none. */
export async function lockSaleForDispute(tx: Queryable, id: PublicId): Promise<DisputedSale | null> {
  const found = await findSaleRow(tx, id);
  if (!found) return null;
  const locked = await lockSale(tx, found.id);
  return locked ? disputedSale(locked, await pendingAmount(tx, locked.id)) : null;
}

/**
 * Moves a sale into or out of a dispute through the one transition path (moveSale: its ledger entry and its
 * sale.* notification in the caller's transaction), and says how much the move took from (positive) or gave
 * back to (negative) the merchant's available balance, so the disputes module can move the rest of the
 * disputed amount itself. A move the status machine refuses throws CONFLICT.
 */
export async function moveDisputedSale(
  tx: Queryable,
  queue: Queue,
  saleId: number,
  to: SaleStatus,
): Promise<{ sale: DisputedSale; tookFromAvailable: number }> {
  const before = await lockSale(tx, saleId);
  if (!before) throw notFound(`sale ${saleId} not found`);
  if (!isDispute(to) && !isDispute(before.status)) throw refusal(before.status, to);
  const effect = before.status === to ? null : ledgerEffect(moneyOf(before), before.status, to);
  const { sale } = await moveSale(tx, queue, saleId, to);
  // every party's available (a split sale's recipients too): the rest of the disputed amount is the platform's
  const onAvailable = (effect?.postings ?? [])
    .filter((p) => !('system' in p.target) && p.target.bucket === 'available')
    .reduce((sum, p) => sum + p.amount, 0);
  return { sale: disputedSale(sale, await pendingAmount(tx, sale.id)), tookFromAvailable: -onAvailable };
}
