import { createHash } from 'node:crypto';
import {
  getBalance,
  type Posting,
  postEntry,
  type ReceivableTake,
  recipientBalances,
  restoreSaleReceivables,
  takeSaleReceivables,
} from '../../ledger/index.js';
import { lockForTransaction } from '../../platform/db/advisory-lock.js';
import type { Db, Queryable } from '../../platform/db/db.js';
import { AppError, conflict, keyReused, notFound } from '../../platform/errors/app-error.js';
import type { PublicId } from '../../platform/ids/public-ids.js';
import type { Queue } from '../../platform/jobs/queue.js';
import { recipientNames } from '../../recipients/index.js';
import { recordNotification } from '../../webhooks/index.js';
import { findSaleRow } from '../charges.data.js';
import { lockSale } from '../data.js';
import type { Refunder } from '../processors/processor.js';
import {
  type LedgerEffect,
  moneyOf,
  partiesOfMoney,
  refundEffect,
  type SaleMoney,
} from '../settlement/ledger-effects.js';
import { saleWebhookBody } from '../settlement/notifications.js';
import { isDispute } from '../settlement/status-machine.js';
import { moveSale } from '../settlement/transition.js';
import { allocate, type HeldBy, type Holder } from '../split.js';
import type { SaleRow } from '../types.js';
import { type RefundView, refundView } from './refund-view.js';
import {
  findRefund,
  forgottenRefunds,
  insertRefund,
  lockRefund,
  newestPendingRefund,
  pendingAmount,
  type RefundAllocation,
  type RefundPayers,
  type RefundRow,
  refundOfKey,
  refundsOfSale,
  refundUnderWay,
  reopenRefund,
  setRefundStatus,
  setSaleRefunds,
  touchRefund,
} from './refunds.data.js';

/*
 * A sale is refunded in one or more refunds (decisions.md, "Refunds"). Every decision about a refund is taken
 * in a transaction that has locked the sale's row first, then the refund's: opening one and holding its money,
 * a processor attempt under it, its end (made or not made). Under that one lock, concurrent refunds never add
 * up to more than the payer paid, and a retry cannot slip between "nothing is under way" and a release.
 */

/** What the payer paid for the sale: what refunds may return in all. */
export const paidOf = (sale: SaleRow): number => sale.paid_amount ?? sale.amount;

export function refundRequestHash(saleId: number, amountCents: number | null): string {
  return createHash('sha256').update(JSON.stringify({ saleId, amountCents })).digest('hex');
}

/**
 * Opens a refund of a PAGO sale (`amountCents` null: all that is left) and holds its share of the net, or
 * returns the refund an earlier request with the same Idempotency-Key opened (a refund that ended not made is
 * opened again, with its hold). Refused: the sale not PAGO or nothing left (CONFLICT), more than what is left
 * (MAXIMUM_VALUE), money already withdrawn (INSUFFICIENT_BALANCE), the key used for another request.
 */
export async function openRefund(
  db: Db,
  saleId: number,
  amountCents: number | null,
  key: string | null,
): Promise<{ refund: RefundRow; replayed: boolean }> {
  return db.tx(async (tx) => {
    // the key first, before the sale: requests sharing it (on different sales, at once) are decided one after
    // the other, the later one finding the earlier's refund (a replay, or 422), never both inserting it
    if (key !== null) await lockForTransaction(tx, 'refund-key', key);
    const sale = await lockSale(tx, saleId);
    if (!sale) throw notFound(`sale ${saleId} not found`);
    const hash = key === null ? null : refundRequestHash(saleId, amountCents);
    if (key !== null) {
      const earlier = await refundOfKey(tx, sale.account_id, key);
      if (earlier && earlier.request_hash !== hash) throw keyReused();
      if (earlier?.status === 'FAILED') return { refund: await reopen(tx, sale, earlier), replayed: true };
      if (earlier) {
        if (earlier.status === 'PENDING') await touchRefund(tx, earlier.id);
        return { refund: earlier, replayed: true };
      }
    }
    if (key === null && amountCents === null) {
      // a retry of "all that is left" (after a timeout or a 502) while that refund is still in progress: the
      // same refund is asked for again, as with a key
      const again = await retriedRefund(tx, sale);
      if (again) return { refund: again, replayed: false };
    }
    const left = await leftToRefund(tx, sale);
    const amount = amountCents ?? left;
    if (amount > left) {
      throw new AppError('MAXIMUM_VALUE', `At most ${left} cents of this sale are left to refund`);
    }
    const net = shareOf(sale, amount, left);
    const payers = await hold(tx, sale, amount, net);
    const refund = await insertRefund(tx, {
      saleId: sale.id,
      accountId: sale.account_id,
      amount,
      net,
      status: 'PENDING',
      key,
      hash,
      payers,
    });
    return { refund, replayed: false };
  });
}

/** The sale's newest refund in progress, when it took all that was left (nothing is left beside it). */
async function retriedRefund(tx: Queryable, sale: SaleRow): Promise<RefundRow | null> {
  if (sale.status !== 'PAGO') return null;
  const pending = await pendingAmount(tx, sale.id);
  if (pending === 0 || paidOf(sale) - sale.refunded_amount - pending > 0) return null;
  const refund = await newestPendingRefund(tx, sale.id);
  if (refund) await touchRefund(tx, refund.id);
  return refund;
}

/** What of a PAGO sale no refund made or in progress has taken; a sale with nothing left is a CONFLICT. */
async function leftToRefund(tx: Queryable, sale: SaleRow): Promise<number> {
  if (sale.status !== 'PAGO') throw conflict(`a sale in status ${sale.status} cannot be refunded`);
  const pending = await pendingAmount(tx, sale.id);
  const left = paidOf(sale) - sale.refunded_amount - pending;
  if (left > 0) return left;
  throw conflict(
    pending > 0
      ? `the rest of this sale (${pending} cents) is being refunded`
      : 'this sale is already refunded in full',
  );
}

/**
 * The share of the sale's net a refund of `amount` takes from the merchant (its parties), when `left` of what the
 * payer paid was still to refund before it: the refunds' running total in proportion to what the payer paid,
 * rounded down, less what the refunds before it took. The rest of the refund is the gateway's fee given back
 * (`feeReturnedCents`). Rounded on the running total, not refund by refund: ten refunds of 1 cent take what one of
 * 10 cents would, and the refund that takes all that is left takes all the net that is left, so the shares add
 * up to the net and the fees given back to the fee, exactly.
 */
export function shareOf(sale: SaleRow, amount: number, left: number): number {
  const taken = sale.refunded_net + sale.refund_pending_net;
  const netLeft = sale.net_amount - taken;
  if (amount === left) return netLeft;
  const paid = paidOf(sale);
  const upTo = Number((BigInt(sale.net_amount) * BigInt(paid - left + amount)) / BigInt(paid));
  return Math.min(netLeft, Math.max(0, upTo - taken));
}

/** A refund that ended not made, asked for again with its key: it is opened again if the sale still has room. */
async function reopen(tx: Queryable, sale: SaleRow, refund: RefundRow): Promise<RefundRow> {
  const left = await leftToRefund(tx, sale);
  if (refund.amount > left) {
    throw new AppError('MAXIMUM_VALUE', `At most ${left} cents of this sale are left to refund`);
  }
  const net = shareOf(sale, refund.amount, left);
  const payers = await hold(tx, sale, refund.amount, net);
  return reopenRefund(tx, refund.id, net, payers);
}

/**
 * Holds a new refund's share of the net (in blocked until its processor answers), party by party (Refunds, in
 * docs/decisions.md): each liable party's part comes first from this sale's card installments not yet paid out
 * nor anticipated (the last ones first), then from its available balance (the platform's held reserve first).
 * A party whose available balance would go below zero refuses the whole refund: 422 INSUFFICIENT_BALANCE naming
 * it and what it lacks, nothing written. Returns who paid.
 */
async function hold(tx: Queryable, sale: SaleRow, amount: number, share: number): Promise<RefundPayers> {
  const before = moneyOf(sale);
  const after = { ...before, refundPendingNet: before.refundPendingNet + share };
  const parties = partiesOfMoney(before);
  const parts = partsOf(before, after);
  const effect = refundEffect('sale.refund_held', before, after, sale.status);
  const postings = effect?.postings ?? [];
  const takes: ReceivableTake[] = [];
  const fromReceivable = parties.map(() => 0);
  for (const [i, p] of parties.entries()) {
    const out = availableOf(postings, p.holder);
    const need = out ? -out.amount : 0;
    if (need <= 0 || !before.receivable) continue;
    // a card sale's money not yet paid out is where this refund's share comes from first
    const taken = await takeSaleReceivables(tx, p.holder, sale.id, need);
    const total = taken.reduce((t, x) => t + x.amount, 0);
    if (total === 0) continue;
    takes.push(...taken);
    fromReceivable[i] = total;
    out!.amount += total;
    postings.push({ target: bucketOf(p.holder, 'receivable'), amount: -total });
  }
  await refuseUncovered(tx, sale, parties, postings);
  if (effect) {
    await post(tx, sale.id, { ...effect, postings }, true).catch(async (err: unknown) => {
      // the entry's guard refused it: an entry committed since the check (a cashout, another refund) took the
      // balance, and the guard waited for it. Checked again as it is now, to name the party and what it lacks
      if (err instanceof AppError && err.code === 'INSUFFICIENT_BALANCE') {
        await refuseUncovered(tx, sale, parties, postings);
      }
      throw err;
    });
  }
  await setSaleRefunds(tx, sale.id, {
    refundedAmount: sale.refunded_amount,
    refundedNet: sale.refunded_net,
    pendingNet: after.refundPendingNet,
  });
  const names = partyNames(sale);
  const allocation: RefundAllocation[] = parties
    .map((_, i) => ({
      party: names[i]!,
      amountCents: parts[i]!,
      fromReceivableCents: fromReceivable[i]!,
      fromAvailableCents: parts[i]! - fromReceivable[i]!,
    }))
    .filter((a) => a.amountCents !== 0);
  return { allocation, feeReturned: amount - share, takes };
}

/** Each party's part of the refunds' net that `after` adds to `before` (their running totals' difference). */
function partsOf(before: SaleMoney, after: SaleMoney): number[] {
  const parties = partiesOfMoney(before);
  const was = allocate(before.refundedNet + before.refundPendingNet, parties);
  const is = allocate(after.refundedNet + after.refundPendingNet, parties);
  return parties.map((_, i) => is[i]! - was[i]!);
}

/**
 * A dispute lost (a part of the sale, or a MED's whole) recorded as a refund made: the money went back to the payer
 * as a refund's would, so the sale's refunds add up to its `refundedAmount` and its sale.refunded tells who paid.
 * `net` is what each party's share of the sale's net gave (party by party, as the loss's ledger entry takes it),
 * `fee` what each paid of the fee on the part lost (a lost dispute gives no fee back: `feeReturnedCents` 0).
 * Nothing moves here: the loss's own entries move the money; this is its record.
 */
export async function recordDisputeLoss(
  tx: Queryable,
  sale: SaleRow,
  loss: { amount: number; net: HeldBy[]; fee: HeldBy[]; reason: string },
): Promise<RefundView> {
  // each holder by the API's name of its party ("platform", or the recipient's public id), as refunds name them
  const parties = partiesOfMoney(moneyOf(sale));
  const names = partyNames(sale);
  const nameOf = (h: Holder) => {
    const at = parties.findIndex((p) =>
      'accountId' in h
        ? 'accountId' in p.holder
        : 'recipientId' in p.holder && p.holder.recipientId === h.recipientId,
    );
    return at >= 0 ? names[at]! : 'platform';
  };
  const byParty = new Map<string, number>();
  for (const p of [...loss.net, ...loss.fee]) {
    byParty.set(nameOf(p.holder), (byParty.get(nameOf(p.holder)) ?? 0) + p.amount);
  }
  const net = loss.net.reduce((sum, p) => sum + p.amount, 0);
  const inserted = await insertRefund(tx, {
    saleId: sale.id,
    accountId: sale.account_id,
    amount: loss.amount,
    net,
    status: 'DONE',
    key: null,
    hash: null,
    reason: loss.reason,
    payers: {
      allocation: [...byParty]
        .filter(([, cents]) => cents !== 0)
        .map(([party, cents]) => ({
          party,
          amountCents: cents,
          fromReceivableCents: 0,
          fromAvailableCents: cents,
        })),
      feeReturned: 0,
      takes: [],
    },
  });
  return refundView(inserted);
}

/** Each party's part of the net a refund of `net` more takes from the sale (`partsOf`), by holder. */
export function netPartsOf(sale: SaleRow, net: number): HeldBy[] {
  const before = moneyOf(sale);
  const parts = partsOf(before, { ...before, refundedNet: before.refundedNet + net });
  return partiesOfMoney(before).map((p, i) => ({ holder: p.holder, amount: parts[i]! }));
}

/** The API's name of each of the sale's parties, in order: "platform", or the recipient's id. */
function partyNames(sale: SaleRow): string[] {
  if (!Array.isArray(sale.split)) return ['platform'];
  return (sale.split as { recipientId: string | null }[]).map((s) => s.recipientId ?? 'platform');
}

const bucketOf = (holder: Holder, bucket: 'available' | 'receivable') =>
  'accountId' in holder
    ? { accountId: holder.accountId, bucket }
    : { recipientId: holder.recipientId, bucket };

/** The posting of `holder`'s available bucket among `postings`, if any. */
function availableOf(postings: Posting[], holder: Holder): Posting | undefined {
  return postings.find((p) => {
    const t = p.target as { accountId?: number; recipientId?: number; bucket?: string };
    if (t.bucket !== 'available') return false;
    return 'accountId' in holder ? t.accountId === holder.accountId : t.recipientId === holder.recipientId;
  });
}

/**
 * Refuses a refund that would take any party's available balance below zero, naming the first that lacks and
 * by how much (in cents, as the refund is asked). The entry's own guard holds it under concurrency; this names
 * (before the entry, and again after the guard refused it).
 */
async function refuseUncovered(
  tx: Queryable,
  sale: SaleRow,
  parties: ReturnType<typeof partiesOfMoney>,
  postings: Posting[],
): Promise<void> {
  const recipientIds = parties.flatMap((p) => ('recipientId' in p.holder ? [p.holder.recipientId] : []));
  const balances = await recipientBalances(tx, recipientIds);
  for (const p of parties) {
    const out = availableOf(postings, p.holder);
    if (!out || out.amount >= 0) continue;
    const has =
      'accountId' in p.holder
        ? (await getBalance(tx, p.holder.accountId)).available
        : (balances.get(p.holder.recipientId)?.available ?? 0);
    const lacks = -out.amount - has;
    if (lacks <= 0) continue;
    const fromCard = sale.payment_method === 'CREDIT_CARD' || sale.payment_method === 'DEBIT_CARD';
    const after = fromCard ? " after what this sale's installments not yet paid out could give" : '';
    if ('accountId' in p.holder) {
      throw new AppError(
        'INSUFFICIENT_BALANCE',
        `The platform's available balance lacks ${lacks} cents for this refund: it needs ${-out.amount} cents${after} and has ${has}`,
      );
    }
    const who = (await recipientNames(tx, [p.holder.recipientId])).get(p.holder.recipientId);
    throw new AppError(
      'INSUFFICIENT_BALANCE',
      `Recipient ${who?.id ?? p.holder.recipientId} (${who?.name ?? '?'}) lacks ${lacks} cents of available balance for this refund: it needs ${-out.amount} cents${after} and has ${has}`,
    );
  }
}

async function post(tx: Queryable, saleId: number, effect: LedgerEffect, guard: boolean): Promise<void> {
  await postEntry(tx, {
    kind: effect.kind,
    refType: 'sale',
    refId: saleId,
    postings: effect.postings,
    guardAvailable: guard,
  });
}

/**
 * The processor reports the refund made: its share leaves the account (from its hold, or from available for a
 * refund that had been taken for not made), the sale's refunded amount grows, and `sale.refunded` is recorded
 * (webhooks; the sale stays PAGO). The refund that reaches what the payer paid makes the sale ESTORNADO
 * through the one transition path instead (both channels). Once per refund: true when this call made it.
 */
export async function completeRefund(db: Db, queue: Queue, refundId: number): Promise<boolean> {
  return (await completeRefundTold(db, queue, refundId)) !== null;
}

/** A refund made, as its sale.refunded fact tells it: the sale as stored after it, and the refund. */
export interface RefundMade {
  sale: SaleRow;
  refund: RefundView;
}

/** completeRefund, returning what its fact told (null when this call did not make it). */
export async function completeRefundTold(db: Db, queue: Queue, refundId: number): Promise<RefundMade | null> {
  const found = await findRefund(db, refundId);
  if (!found || found.status === 'DONE') return null;
  return db.tx(async (tx) => {
    const sale = await lockSale(tx, found.sale_id);
    const refund = await lockRefund(tx, refundId);
    if (!sale || !refund || refund.status === 'DONE') return null;
    return completeLocked(tx, queue, sale, refund);
  });
}

/**
 * completeRefund inside a transaction that has locked the refund's sale and the refund. The sale.refunded body
 * is built from the sale as this refund leaves it (refundedAmount after it, under the sale's lock however many
 * refunds end at once) and carries the refund.
 */
async function completeLocked(
  tx: Queryable,
  queue: Queue,
  sale: SaleRow,
  refund: RefundRow,
): Promise<RefundMade> {
  const made = refundView(await setRefundStatus(tx, refund.id, 'DONE'));
  // refunded in full meanwhile (a dispute lost, a devolução made outside the gateway): nothing of it is left
  if (sale.status !== 'PAGO' && !isDispute(sale.status)) return { sale, refund: made };
  await returnFee(tx, sale.id, Number(refund.fee_returned));
  if (sale.refunded_amount + refund.amount >= paidOf(sale)) {
    // the last refund: the move to ESTORNADO records its sale.refunded (refundedAmount all that was paid)
    const moved = await moveSale(tx, queue, sale.id, 'ESTORNADO', made);
    return { sale: moved.sale, refund: made };
  }
  const before = moneyOf(sale);
  const after = {
    ...before,
    refundedNet: before.refundedNet + refund.net,
    refundPendingNet: before.refundPendingNet - (refund.status === 'PENDING' ? refund.net : 0),
  };
  const effect = refundEffect('sale.refunded', before, after, sale.status);
  if (effect) await post(tx, sale.id, effect, false);
  const updated = await setSaleRefunds(tx, sale.id, {
    refundedAmount: sale.refunded_amount + refund.amount,
    refundedNet: after.refundedNet,
    pendingNet: after.refundPendingNet,
  });
  await recordNotification(tx, {
    accountId: sale.account_id,
    event: 'sale.refunded',
    subjectType: 'sale',
    subjectId: sale.id,
    webhookBody: { ...saleWebhookBody(updated), refund: made },
  });
  return { sale: updated, refund: made };
}

/**
 * The part of the gateway's fee a refund made gives back (its `feeReturnedCents`): the payer gets the refund's
 * whole amount back at the processor, the parties pay their shares, and the gateway's revenue (`system:fees`)
 * pays the rest.
 */
async function returnFee(tx: Queryable, saleId: number, feeReturned: number): Promise<void> {
  if (feeReturned <= 0) return;
  await postEntry(tx, {
    kind: 'sale.fee_returned',
    refType: 'sale',
    refId: saleId,
    postings: [
      { target: { system: 'fees' }, amount: -feeReturned },
      { target: { system: 'processor' }, amount: feeReturned },
    ],
  });
}

/**
 * The sandbox's report that the processor refunded a PAGO sale of the account in full: what is left is refunded as
 * the refund route refunds it (its admission: a party whose `available` cannot cover its share is answered 422
 * INSUFFICIENT_BALANCE, and nothing is written; only a lost dispute takes a balance below zero), then every refund
 * of the sale in progress is reported done, the last making the sale ESTORNADO (its sale.refunded carries it).
 * Answers the sale as the last refund left it; null, with nothing done, when the sale is not the account's or not
 * PAGO (the report is a status move then).
 */
export async function refundedInFull(
  db: Db,
  queue: Queue,
  accountId: number,
  id: PublicId,
): Promise<SaleRow | null> {
  const sale = await findSaleRow(db, id);
  if (!sale || Number(sale.account_id) !== accountId || sale.status !== 'PAGO') return null;
  await openRefund(db, sale.id, null, null);
  let last: SaleRow | null = null;
  for (const refund of await refundsOfSale(db, sale.id)) {
    if (refund.status === 'PENDING')
      last = (await completeRefundTold(db, queue, Number(refund.id)))?.sale ?? last;
  }
  return last ?? findSaleRow(db, id);
}

/** The reason a refund the gateway did not ask for shows. */
export const MADE_AT_THE_PROCESSOR = 'Made at the payment processor without a request of the gateway';

/**
 * A refund made without the gateway asking (a devolução made at the PSP or by the payer's bank): recorded as a
 * refund made at once, its share taken from available (no guard: it is already gone, and may leave the
 * merchant a debt); the one that completes what the payer paid makes the sale ESTORNADO. Recorded for at most
 * what was left of the sale to refund (the sale's refunds never add up to more than was paid); returns the
 * amount recorded (0: nothing was left, or the sale can no longer be refunded). In the caller's transaction,
 * with what else the report changes (the devolução recorded, a dispute told): all of it or none.
 */
export async function recordRefundMade(
  tx: Queryable,
  queue: Queue,
  saleId: number,
  reported: number,
): Promise<number> {
  const sale = await lockSale(tx, saleId);
  if (!sale || (sale.status !== 'PAGO' && !isDispute(sale.status))) return 0;
  // what is left of what was paid, by the refunds made alone: one in progress may never be made (the PSP
  // refuses a devolução beyond what its Pix has left, as this one took it), and counted here it would leave
  // this money, gone for certain, unrecorded once that one ends not made. Its hold stays where it is: ended
  // not made, it is given back; made after all (both went back to the payer), the move to ESTORNADO takes it.
  const left = paidOf(sale) - sale.refunded_amount;
  const amount = Math.min(reported, Math.max(left, 0));
  if (amount <= 0) return 0;
  const net = shareOf({ ...sale, refund_pending_net: 0 }, amount, left);
  // already made: its parts come from available, as it completes (no installment is taken)
  const before = moneyOf(sale);
  const parts = partsOf(before, { ...before, refundedNet: before.refundedNet + net });
  const names = partyNames(sale);
  const refund = await insertRefund(tx, {
    saleId,
    accountId: sale.account_id,
    amount,
    net,
    status: 'FAILED', // not held: completing it takes its share from available
    key: null,
    hash: null,
    reason: MADE_AT_THE_PROCESSOR,
    payers: {
      allocation: parts
        .map((part, i) => ({
          party: names[i]!,
          amountCents: part,
          fromReceivableCents: 0,
          fromAvailableCents: part,
        }))
        .filter((a) => a.amountCents !== 0),
      feeReturned: amount - net,
      takes: [],
    },
  });
  await completeLocked(tx, queue, sale, refund);
  return amount;
}

/**
 * The refund was not made (the processor says so, or it was never asked): its hold is the merchant's again.
 * Refused while an attempt of it is under way at its processor; `idleFor`: only if the refund was not asked
 * for again within that time. True when this call ended it.
 */
export async function failRefund(db: Db, refundId: number, idleFor?: number): Promise<boolean> {
  const found = await findRefund(db, refundId);
  if (found?.status !== 'PENDING') return false;
  return db.tx(async (tx) => {
    const sale = await lockSale(tx, found.sale_id);
    return sale ? failLocked(tx, sale, refundId, idleFor) : false;
  });
}

/** failRefund inside a transaction that has locked the refund's sale. */
export async function failLocked(
  tx: Queryable,
  sale: SaleRow,
  refundId: number,
  idleFor?: number,
): Promise<boolean> {
  const refund = await lockRefund(tx, refundId);
  if (refund?.status !== 'PENDING') return false;
  const [state] = await tx.query<{ idle: boolean; under_way: boolean }>(
    `SELECT r.updated_at < now() - make_interval(secs => $2) AS idle, ${refundUnderWay()} AS under_way
       FROM sale_refunds r WHERE r.id = $1`,
    [refundId, (idleFor ?? 0) / 1000],
  );
  if (state?.under_way || (idleFor !== undefined && !state?.idle)) return false;
  await setRefundStatus(tx, refund.id, 'FAILED');
  if (sale.status !== 'PAGO' && !isDispute(sale.status)) return true; // refunded in full meanwhile: no hold left
  const before = moneyOf(sale);
  const after = { ...before, refundPendingNet: before.refundPendingNet - refund.net };
  const effect = refundEffect('sale.refund_released', before, after, sale.status);
  if (effect) {
    // the installments it took go back to them (those not paid out meanwhile); the rest to available
    const postings = [...effect.postings];
    for (const back of await restoreSaleReceivables(tx, refund.receivable_takes ?? [])) {
      const into = availableOf(postings, back.holder);
      if (into) into.amount -= back.amount;
      else postings.push({ target: bucketOf(back.holder, 'available'), amount: -back.amount });
      postings.push({ target: bucketOf(back.holder, 'receivable'), amount: back.amount });
    }
    await post(tx, sale.id, { ...effect, postings }, false);
  }
  await setSaleRefunds(tx, sale.id, {
    refundedAmount: sale.refunded_amount,
    refundedNet: sale.refunded_net,
    pendingNet: after.refundPendingNet,
  });
  return true;
}

/** How often pending refunds are looked at, and how long one may go unanswered before it counts as forgotten. */
export const FORGOTTEN_REFUND_CHECK_EVERY_MS = 60_000;
export const FORGOTTEN_REFUND_AFTER_MS = 10 * 60_000;

/**
 * Pending refunds nothing is under way for, untouched for FORGOTTEN_REFUND_AFTER_MS: what leaves one behind is a
 * crash between its opening and the processor's request, or an answer lost. A processor that can tell
 * (`resolve`: the card acquirer) is asked whether it made it; the others' end as not made. Each is decided again
 * under the sale's lock. Returns how many ended not made.
 */
export async function releaseForgottenRefunds(
  db: Db,
  queue?: Queue,
  refunders: ReadonlyMap<string, Refunder> = new Map(),
): Promise<number> {
  let released = 0;
  for (const forgotten of await forgottenRefunds(db, FORGOTTEN_REFUND_AFTER_MS / 1000)) {
    const resolver = refunders.get(forgotten.processor);
    const outcome = resolver?.resolve
      ? await resolver
          .resolve({ uuid: forgotten.sale_uuid }, { id: forgotten.id, amount: forgotten.amount })
          .catch(() => 'unknown' as const)
      : 'not_made';
    if (outcome === 'done' && queue) await completeRefund(db, queue, forgotten.id);
    if (outcome === 'not_made' && (await failRefund(db, forgotten.id, FORGOTTEN_REFUND_AFTER_MS))) released++;
  }
  return released;
}
