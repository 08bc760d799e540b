import { postEntry } from '../ledger/index.js';
import type { Queryable } from '../platform/db/db.js';
import { notFound } from '../platform/errors/app-error.js';
import type { PublicId } from '../platform/ids/public-ids.js';
import type { Queue } from '../platform/jobs/queue.js';
import { findSaleRow } from './charges.data.js';
import { lockSale } from './data.js';
import { pendingAmount, setSaleRefunds } from './refunds/refunds.data.js';
import { netPartsOf, recordDisputeLoss, shareOf } from './refunds/refunds.js';
import {
  disputeClaims,
  ledgerEffect,
  moneyOf,
  partDisputeMoves,
  refundEffect,
} from './settlement/ledger-effects.js';
import { isDispute, type SaleStatus } from './settlement/status-machine.js';
import { applyMoves, moveSale, refusal } from './settlement/transition.js';
import { allocate, type HeldBy } from './split.js';
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
  heldParts: HeldBy[];
  /** What a dispute may still claim: what the payer paid less the refunds made or in progress. */
  disputable: number;
  /** The share of the net a loss of `amount` (at most `disputable`) takes, as a refund of it would. */
  netShareOf: (amount: number) => number;
  /**
   * In a dispute status, for a dispute of part of the sale: each party's move from available to blocked beside
   * the status's own, so that it holds what it held before plus what losing `amount` takes from it
   * (`partDisputeMoves`).
   */
  partMovesOf: (amount: number) => HeldBy[];
}

/**
 * `cents` shared among the parts a dispute holds, in proportion to what each holds, exact in cents (split.ts's
 * `allocate`, the rule refunds and lost disputes share by): at most what each holds when `cents` is at most
 * their sum.
 */
export function shareOfHeld(held: DisputedSale['heldParts'], cents: number): DisputedSale['heldParts'] {
  const shares = allocate(
    cents,
    held.map((h) => ({ holder: h.holder, gross: h.amount, net: h.amount, liable: true, paysFees: false })),
  );
  return held.map((h, i) => ({ holder: h.holder, amount: shares[i]! }));
}

function disputedSale(s: SaleRow, refunding: number): DisputedSale {
  const heldParts = isDispute(s.status) ? disputeClaims(moneyOf(s)).filter((c) => c.amount !== 0) : [];
  const heldNet = heldParts.reduce((sum, c) => sum + c.amount, 0);
  const disputable = Math.max(0, moneyOf(s).amount - s.refunded_amount - refunding);
  return {
    id: s.id,
    uuid: s.uuid,
    accountId: s.account_id,
    status: s.status,
    paymentMethod: s.payment_method,
    amount: moneyOf(s).amount,
    heldNet,
    heldParts,
    disputable,
    netShareOf: (amount) => shareOf(s, amount, disputable),
    partMovesOf: (amount) => partDisputeMoves(moneyOf(s), s.status, shareOf(s, amount, disputable)),
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
  /**
   * A MED lost for all that was left (to ESTORNADO): recorded as a refund made (recordDisputeLoss), its parties'
   * shares of the net those the dispute held, and `fee` each one's part of the fee on it; its sale.refunded tells it.
   */
  lost?: { amount: number; fee: HeldBy[]; reason: string },
): Promise<{ sale: DisputedSale; tookFromAvailable: number }> {
  const before = await lockSale(tx, saleId);
  if (!before) throw notFound(`sale ${saleId} not found`);
  if (!isDispute(to) && !isDispute(before.status)) throw refusal(before.status, to);
  const effect = before.status === to ? null : ledgerEffect(moneyOf(before), before.status, to);
  const refund =
    lost && to === 'ESTORNADO' && before.status !== to
      ? await recordDisputeLoss(tx, before, { ...lost, net: disputedSale(before, 0).heldParts })
      : undefined;
  const { sale } = await moveSale(tx, queue, saleId, to, refund);
  // every party's available (a split sale's recipients too): the rest of the disputed amount is the platform's
  const onAvailable = (effect?.postings ?? [])
    .filter((p) => !('system' in p.target) && p.target.bucket === 'available')
    .reduce((sum, p) => sum + p.amount, 0);
  return { sale: disputedSale(sale, await pendingAmount(tx, sale.id)), tookFromAvailable: -onAvailable };
}

/**
 * Settles a dispute lost for part of what is left of the sale (decisions.md, "Disputes"): the part lost is
 * recorded as refunded (refundedAmount grows by it, and its share of the net, as a refund of that amount would
 * take, leaves the liable parties' blocked to the payer), then the sale goes back to PAGO, freeing what the
 * dispute held beyond it, and tells sale.refunded. What is left of the sale can be refunded or disputed again.
 * Returns the share of the net taken: the rest of the part lost (the fee on it) is the disputes module's to take.
 */
export async function loseDisputedPart(
  tx: Queryable,
  queue: Queue,
  saleId: number,
  amount: number,
  /** Who pays the fee on the part lost (a lost dispute gives none back), for its refund's record; and why. */
  loss: { fee: (cents: number) => HeldBy[]; reason: string },
): Promise<{ netTaken: number }> {
  const before = await lockSale(tx, saleId);
  if (!before) throw notFound(`sale ${saleId} not found`);
  if (!isDispute(before.status)) throw refusal(before.status, 'PAGO');
  const left = moneyOf(before).amount - before.refunded_amount - (await pendingAmount(tx, before.id));
  if (amount < 1 || amount >= left) throw new Error(`a part lost of ${amount} of ${left} left is no part`);
  const netTaken = shareOf(before, amount, left);
  const money = moneyOf(before);
  const after = { ...money, refundedNet: money.refundedNet + netTaken };
  const effect = refundEffect('sale.dispute_lost', money, after, before.status);
  if (effect) {
    await postEntry(tx, { kind: effect.kind, refType: 'sale', refId: saleId, postings: effect.postings });
  }
  const refund = await recordDisputeLoss(tx, before, {
    amount,
    net: netPartsOf(before, netTaken),
    fee: loss.fee(amount - netTaken),
    reason: loss.reason,
  });
  const recorded = await setSaleRefunds(tx, saleId, {
    refundedAmount: before.refunded_amount + amount,
    refundedNet: after.refundedNet,
    pendingNet: before.refund_pending_net,
  });
  await applyMoves(tx, queue, [{ before: recorded, to: 'PAGO', lostInPart: true, refund }]);
  return { netTaken };
}
