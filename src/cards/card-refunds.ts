import { setTimeout as sleep } from 'node:timers/promises';
import { PspError } from '../payment-standards/index.js';
import type { Db } from '../platform/db/db.js';
import { type Refunder, RefundNotMade } from '../sales/index.js';
import type { Acquirer } from './acquirer.js';
import { AcquirerRefused } from './errors.js';
import {
  claimCardRefund,
  forgetRefundAttempt,
  REFUND_CLAIM_SECONDS,
  type RefundAttempt,
  recordRefundAttempt,
  refundAttemptOf,
  releaseCardRefund,
  voidedAfter,
} from './payments.data.js';

/** The `processor` a card sale made through this acquirer carries (the sales module's refunders are keyed by it). */
export const cardProcessorOf = (acquirer: Acquirer) => `card:${acquirer.name}`;

/**
 * Refunds of card sales: a void of the refund's amount at the acquirer (Cielo's `PUT /1/sales/{id}/void?amount=`
 * voids the same day and refunds after). A void is not idempotent, so one refund of a sale speaks to the acquirer
 * at a time, and each attempt records what the payment had voided before it was sent: whether an attempt whose
 * answer was lost was made is read from the payment's voided amount (as it is now, or as the next attempt found
 * it), and a made void is never sent again.
 */
export class CardRefunds implements Refunder {
  readonly name: string;

  constructor(
    private readonly db: Db,
    private readonly acquirer: Acquirer,
  ) {
    this.name = cardProcessorOf(acquirer);
  }

  async refund(sale: { uuid: string }, refund: { id: number; amount: number }): Promise<'done' | 'pending'> {
    const claim = await this.claimInTurn(sale.uuid);
    if (claim === null) throw new RefundNotMade('this sale has no card payment', null);
    // another request held the sale's claim past its lease: this refund stays held, the forgotten-refund job's
    if (claim === 'busy') return 'pending';
    try {
      if (!claim.payment_id) throw new RefundNotMade('the card was never charged', null);
      const earlier = await refundAttemptOf(this.db, refund.id);
      const voided = await this.voidedNow(sale.uuid, earlier === null);
      if (earlier && (await this.made(claim.sale_id, earlier, voided))) return 'done';
      await forgetRefundAttempt(this.db, refund.id); // not made: sent again as a new attempt
      const attempt = await recordRefundAttempt(this.db, {
        refundId: refund.id,
        saleId: claim.sale_id,
        amount: refund.amount,
        voidedBefore: voided,
      });
      try {
        await this.acquirer.cancel(claim.payment_id, refund.amount);
        return 'done';
      } catch (err) {
        if (err instanceof AcquirerRefused) {
          await forgetRefundAttempt(this.db, refund.id);
          throw new RefundNotMade(`the acquirer refused the refund: ${err.message}`, null);
        }
        // no answer: the void may have been made; read back once (no other attempt can have followed)
        const after = await this.acquirer.findByOrderId(sale.uuid).catch(() => null);
        if (after && after.voidedCents >= attempt.voided_before + attempt.amount) return 'done';
        throw new PspError(`the acquirer did not answer the refund: ${(err as Error).message}`, null);
      }
    } finally {
      await releaseCardRefund(this.db, claim.sale_id);
    }
  }

  /**
   * The sale's claim once the refunds before it have spoken to the acquirer (refunds of one sale asked together
   * are sent one after another, each in its own request); `busy` if it is still held when its lease runs out.
   */
  private async claimInTurn(orderId: string): ReturnType<typeof claimCardRefund> {
    const until = Date.now() + REFUND_CLAIM_SECONDS * 1000;
    for (let wait = 10; ; wait = Math.min(wait * 2, 200)) {
      const claim = await claimCardRefund(this.db, orderId);
      if (claim !== 'busy' || Date.now() + wait > until) return claim;
      await sleep(wait);
    }
  }

  /** A refund left in progress: made if the payment shows its void, not made if none was, or none was sent. */
  async resolve(sale: { uuid: string }, refund: { id: number; amount: number }) {
    const claim = await claimCardRefund(this.db, sale.uuid);
    if (claim === 'busy') return 'unknown' as const;
    if (claim === null) return 'not_made' as const;
    try {
      const attempt = await refundAttemptOf(this.db, refund.id);
      if (!attempt) return 'not_made' as const;
      const voided = await this.voidedNow(sale.uuid, false);
      return (await this.made(claim.sale_id, attempt, voided)) ? ('done' as const) : ('not_made' as const);
    } finally {
      await releaseCardRefund(this.db, claim.sale_id);
    }
  }

  /** Whether an attempt was made: the payment's voided amount right after it grew by the attempt's amount. */
  private async made(saleId: number, attempt: RefundAttempt, voidedNow: number): Promise<boolean> {
    const after = (await voidedAfter(this.db, saleId, attempt.id)) ?? voidedNow;
    return after >= attempt.voided_before + attempt.amount;
  }

  /** What the payment has voided now; unreachable before any attempt of this refund: certainly not made. */
  private async voidedNow(orderId: string, nothingSent: boolean): Promise<number> {
    const payment = await this.acquirer.findByOrderId(orderId).catch((err: unknown) => {
      if (nothingSent)
        throw new RefundNotMade(`the acquirer could not be asked: ${(err as Error).message}`, null);
      throw new PspError(`the acquirer could not be asked: ${(err as Error).message}`, null);
    });
    if (!payment) throw new RefundNotMade('the acquirer has no payment for this sale', null);
    return payment.voidedCents;
  }
}
