import {
  type AccountStatus,
  accountProfile,
  accountStanding,
  changeStanding,
  requireFeePlan,
  resumeCardPayments,
  type StatusChange,
} from '../accounts/index.js';
import type { AuthCache } from '../auth/index.js';
import type { MailOutbox } from '../mail/index.js';
import { type OperatorActor, recordOperatorAudit } from '../operators/index.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { AppError, notFound } from '../platform/errors/app-error.js';
import type { Queue } from '../platform/jobs/queue.js';
import {
  closeReview,
  findReview,
  lockOpenReview,
  openAccountRiskReviewOf,
  openOnboardingReviewOf,
  type ReviewRow,
} from '../reviews/index.js';
import {
  decideHeld,
  holdUnsent,
  type ReviewDecision,
  releaseAccount,
  type WithdrawalRow,
} from '../withdrawals/index.js';

/** What an account's standing asks of its subscriptions (the subscriptions module's Subscriptions, wired by app.ts). */
export interface AccountSubscriptions {
  pauseAllOf(tx: Queryable, accountId: number): Promise<void>;
  resumeAllOf(tx: Queryable, accountId: number): Promise<void>;
  cancelAllOf(tx: Queryable, accountId: number): Promise<number>;
}

/** What the console asks of a card sale held for a risk review (the cards module's CardSales, wired by app.ts). */
export interface HeldCardSales {
  decideHeld(
    saleId: number,
    decision: 'approve' | 'reject',
    inTx: (tx: Queryable) => Promise<void>,
  ): Promise<void>;
}

export type AccountAction =
  | 'approve'
  | 'reject'
  | 'close'
  | 'suspend'
  | 'reactivate'
  | 'payout-hold'
  | 'payout-release'
  | 'card-payments-resume';

/** How long after a close its open charges are looked for again (docs/decisions.md, on an account closed). */
const CLOSED_ACCOUNT_SWEEP_AGAIN_SECONDS = 120;

/**
 * What operators do to accounts and held withdrawals: each change, its effects on the account's withdrawals,
 * the owner's e-mail and the operator audit entry (before and after) commit together.
 */
export class ConsoleActions {
  constructor(
    private readonly db: Db,
    private readonly queue: Queue,
    private readonly mail: MailOutbox,
    private readonly authCache: AuthCache,
    private readonly deps: {
      heldCards?: HeldCardSales;
      subscriptions?: AccountSubscriptions;
      /**
       * Cancels a closed account's open charges (PIX and boleto awaiting payment, card authorizations not
       * captured), once the close committed.
       */
      cancelOpenCharges?: (accountId: number) => Promise<void>;
    } = {},
  ) {}

  async onAccount(accountId: number, action: AccountAction, reason: string | null, actor: OperatorActor) {
    const change = await this.db.tx(async (tx) => {
      const changed = await this.change(tx, accountId, action, reason, actor);
      await recordOperatorAudit(tx, actor, {
        action: `account.${action}`,
        accountId,
        target: `account:${accountId}`,
        before: changed.before,
        after: { ...changed.after, ...(reason ? { reason } : {}) },
      });
      return changed;
    });
    // every process refuses or lets through by the new status from the next request on
    await this.authCache.awaitPropagation(change.seq);
    if (action === 'close') await this.deps.cancelOpenCharges?.(accountId);
    return accountProfile(this.db, accountId);
  }

  private async change(
    tx: Queryable,
    accountId: number,
    action: AccountAction,
    reason: string | null,
    actor: OperatorActor,
  ): Promise<StatusChange> {
    const cause = `${action}:${accountId}:${Date.now()}`;
    const status = (from: AccountStatus[], to: AccountStatus) =>
      changeStanding(tx, this.mail, accountId, { kind: 'status', from, to }, reason, cause);
    const hold = (on: boolean) =>
      changeStanding(tx, this.mail, accountId, { kind: 'hold', on }, reason, cause);
    switch (action) {
      case 'approve': {
        // an approved account charges at prices someone chose: its plan, or FEE_PLAN_DEFAULT's
        await requireFeePlan(tx, accountId);
        const changed = await status(['pending_review'], 'active');
        await this.closeOnboarding(tx, accountId, 'approved', actor, reason);
        return changed;
      }
      case 'reject': {
        const changed = await status(['pending_review'], 'closed');
        await this.closeOnboarding(tx, accountId, 'rejected', actor, reason);
        return changed;
      }
      case 'close': {
        // its keys and sessions are refused from now on; balances, receivables and accepted withdrawals go on
        const changed = await status(['active', 'suspended'], 'closed');
        await this.deps.subscriptions?.cancelAllOf(tx, accountId);
        // the open charges are cancelled once this commits (onAccount), and again a while later, by a job sent
        // with the close: a charge admitted as the close committed (its request past the key's check, its
        // transaction reading the account still active) ends within that while, and a process stopped between
        // the commit and the first sweep leaves none open
        await this.queue.send(
          tx,
          'sales.cancel-account-charges',
          { accountId },
          { startAfterSeconds: CLOSED_ACCOUNT_SWEEP_AGAIN_SECONDS },
        );
        return changed;
      }
      case 'suspend': {
        const changed = await status(['active'], 'suspended');
        await holdUnsent(tx, accountId);
        await this.deps.subscriptions?.pauseAllOf(tx, accountId);
        return changed;
      }
      case 'reactivate': {
        const changed = await status(['suspended'], 'active');
        await this.deps.subscriptions?.resumeAllOf(tx, accountId);
        if (!changed.after.payoutHold) await releaseAccount(tx, this.queue, accountId, actor.email);
        return changed;
      }
      case 'payout-hold': {
        const changed = await hold(true);
        await holdUnsent(tx, accountId);
        return changed;
      }
      case 'payout-release': {
        const changed = await hold(false);
        if (changed.after.status !== 'suspended')
          await releaseAccount(tx, this.queue, accountId, actor.email);
        return changed;
      }
      case 'card-payments-resume': {
        // the operator's next step once the refusal ratio's review was rejected (its approval resumes them too)
        const standing = await accountStanding(tx, accountId);
        if (!standing) throw notFound('Account not found');
        if (standing.status === 'closed') throw new AppError('INVALID_STATUS', 'The account is closed');
        if (!(await resumeCardPayments(tx, accountId))) {
          throw new AppError('INVALID_STATUS', "This account's card payments are not paused");
        }
        // its review still open is decided by this: approved, as approving it would have resumed them
        const review = await openAccountRiskReviewOf(tx, accountId);
        if (review !== null) {
          await lockOpenReview(tx, review);
          await closeReview(tx, review, 'approved', actor.email, reason ?? 'pagamentos com cartão retomados');
        }
        return {
          accountId,
          before: { ...standing, cardPaymentsPaused: true },
          after: { ...standing, cardPaymentsPaused: false },
          seq: 0,
        };
      }
    }
  }

  private async closeOnboarding(
    tx: Queryable,
    accountId: number,
    decision: 'approved' | 'rejected',
    actor: OperatorActor,
    reason: string | null,
  ): Promise<void> {
    const id = await openOnboardingReviewOf(tx, accountId);
    if (id === null) return;
    await lockOpenReview(tx, id);
    await closeReview(tx, id, decision, actor.email, reason);
  }

  /** A held withdrawal released or cancelled by a risk operator, audited with its status before and after. */
  onWithdrawal(id: number, decision: ReviewDecision, actor: OperatorActor): Promise<WithdrawalRow> {
    return decideHeld(this.db, this.queue, id, decision, actor.email, (tx, before, after) =>
      recordOperatorAudit(tx, actor, {
        action: decision === 'release' ? 'withdrawal.released' : 'withdrawal.cancelled',
        accountId: Number(before.account_id),
        target: `withdrawal:${before.uuid}`,
        before: { status: before.status },
        after: { status: after.status },
      }),
    );
  }

  /**
   * A review decided from the queue: an onboarding review approves or rejects its account (admin only); a risk
   * review of a held card sale captures (approve) or voids (reject) it; an account's risk review, on its own.
   */
  async onReview(
    id: number,
    decision: 'approve' | 'reject',
    reason: string | null,
    actor: OperatorActor & { isAdmin: boolean },
  ): Promise<ReviewRow> {
    const found = await findReview(this.db, id);
    if (!found) throw notFound('Review not found');
    if (found.kind === 'onboarding') {
      if (!actor.isAdmin) {
        // refused beyond the role: in the operator audit log as every other refusal (session.hook.ts)
        await recordOperatorAudit(this.db, actor, {
          action: 'denied',
          target: `POST /api/ops/reviews/${id}/${decision}`,
          accountId: Number(found.account_id),
          after: { role: 'insufficient' },
        });
        throw new AppError('FORBIDDEN', 'Onboarding decisions need the admin role');
      }
      if (found.status !== 'open')
        throw new AppError('INVALID_STATUS', `Review ${id} was already ${found.status}`);
      await this.onAccount(Number(found.account_id), decision, reason, actor);
      return (await findReview(this.db, id))!;
    }
    if (found.status !== 'open')
      throw new AppError('INVALID_STATUS', `Review ${id} was already ${found.status}`);
    if (found.sale_id !== null && this.deps.heldCards) {
      // a card sale held by a risk rule: captured or voided at the acquirer, then the review closed with it
      let closed: ReviewRow | null = null;
      await this.deps.heldCards.decideHeld(Number(found.sale_id), decision, async (tx) => {
        closed = await this.closeRiskReview(tx, id, decision, reason, actor, false);
      });
      return closed!;
    }
    return this.db.tx((tx) => this.closeRiskReview(tx, id, decision, reason, actor, true));
  }

  /** A risk review closed and audited; `resume`: approving it resumes the account's paused card payments. */
  private async closeRiskReview(
    tx: Queryable,
    id: number,
    decision: 'approve' | 'reject',
    reason: string | null,
    actor: OperatorActor,
    resume: boolean,
  ): Promise<ReviewRow> {
    const review = await lockOpenReview(tx, id);
    const closed = await closeReview(
      tx,
      id,
      decision === 'approve' ? 'approved' : 'rejected',
      actor.email,
      reason,
    );
    // a risk review approved clears the account: card payments paused by its refusals go on
    const resumed =
      resume && decision === 'approve' && (await resumeCardPayments(tx, Number(review.account_id)));
    await recordOperatorAudit(tx, actor, {
      action: `review.${decision === 'approve' ? 'approved' : 'rejected'}`,
      accountId: Number(review.account_id),
      target: `review:${id}`,
      before: { status: review.status },
      after: {
        status: closed.status,
        ...(resumed ? { cardPayments: 'resumed' } : {}),
        ...(review.sale_id !== null ? { sale: Number(review.sale_id) } : {}),
        ...(reason ? { reason } : {}),
      },
    });
    return closed;
  }
}
