import type { Static } from 'typebox';
import { accountName, accountStanding } from '../accounts/index.js';
import { accountRefusal } from '../auth/index.js';
import { saveCard, savedCardsOf } from '../cards/index.js';
import { qrSvgDataUri } from '../payment-standards/index.js';
import type { Db } from '../platform/db/db.js';
import { AppError, notFound, validation } from '../platform/errors/app-error.js';
import { salesOfSubscription } from '../sales/index.js';
import {
  lockSubscription,
  type PlanRow,
  periodsOfSales,
  type SubscriptionRow,
  saveSubscription,
  subscriptionByTokenHash,
} from './data.js';
import type { BillingPage } from './schemas.js';
import {
  billingTokenHash,
  chargeTimeOf,
  isFinal,
  periodOf,
  type Subscriber,
  type Subscriptions,
  shownNextChargeAt,
  subscribersOf,
  upcomingPlan,
} from './subscriptions.js';

/**
 * The first day of the period the next charge is for: the period after the one being billed when its try is
 * under way (the next charge is then the following period's), else the one being billed. Null when nothing
 * more is charged.
 */
function nextChargeDue(sub: SubscriptionRow, plan: PlanRow, boletoDaysBefore: number): string | null {
  if (shownNextChargeAt(sub) === null || sub.next_charge_at === null) return null;
  const following = sub.period_index + 1;
  const ahead =
    chargeTimeOf(sub, plan, following, boletoDaysBefore).getTime() === sub.next_charge_at.getTime();
  return periodOf(sub, plan, ahead ? following : sub.period_index).start;
}

/** A plan change coming, as the customer's page tells it. */
function nextPlanOf(sub: SubscriptionRow, who: Subscriber): BillingView['nextPlan'] {
  const next = isFinal(sub.status) || sub.cancel_at_period_end ? null : upcomingPlan(sub, who);
  return next && { name: next.plan.name, amountCents: next.plan.amount_cents, from: next.from };
}

/** What the customer's page shows: no key, no id of anything but the page's own sales. */
export type BillingView = Static<typeof BillingPage>;

export interface CardIn {
  number: string;
  holderName: string;
  expMonth: number;
  expYear: number;
  cvv: string;
}

/** Tokenizes a card for an account (the cards module's CardTokens, its refusals as AppErrors). */
export type Tokenize = (accountId: number, card: CardIn, ip: string) => Promise<{ token: string }>;

/**
 * The customer's own page, `/billing/<token>` (the link in each e-mail): the subscription and its sales, a new
 * card (tokenized for the merchant's account, saved on file, tried at once when a charge is behind) and the
 * cancellation at the period's end. An unknown token is not found.
 */
export class CustomerPage {
  constructor(
    private readonly db: Db,
    private readonly subscriptions: Subscriptions,
    private readonly tokenize: Tokenize | null,
    /**
     * The scheduler's own charge of a period due, made now, and a try another is making meanwhile waited for
     * (the biller's `chargeNowOrAwait`).
     */
    private readonly chargeNow: ((subscriptionId: number, due: boolean) => Promise<void>) | null = null,
  ) {}

  async view(token: string): Promise<BillingView> {
    return this.viewOf(await this.find(token));
  }

  /**
   * The customer's new card, saved and charged for what is due. `countAttempt` counts it against the card-testing
   * limits once the subscription and its account are found able to take it: a refused page spends none.
   */
  async changeCard(
    token: string,
    card: CardIn,
    ip: string,
    countAttempt: () => Promise<void>,
  ): Promise<BillingView> {
    const sub = await this.find(token);
    if (sub.payment_method !== 'CREDIT_CARD') throw validation('this subscription is not paid by card');
    if (isFinal(sub.status)) throw new AppError('INVALID_STATUS', `this subscription is ${sub.status}`);
    // a customer's card is one the account saves, and the charge it makes one the account opens: a suspended
    // account or one waiting for review does neither (its claim would wait out its lease, the period unpaid)
    const refused = accountRefusal(await accountStanding(this.db, sub.account_id), 'charge');
    if (refused) throw refused;
    if (!this.tokenize) throw new AppError('PROCESSOR_UNAVAILABLE', 'card payments are not available');
    await countAttempt();
    const { token: cardToken } = await this.tokenize(sub.account_id, card, ip);
    const due = await this.db.tx(async (tx) => {
      const locked = (await lockSubscription(tx, sub.id))!;
      if (isFinal(locked.status))
        throw new AppError('INVALID_STATUS', `this subscription is ${locked.status}`);
      const saved = await saveCard(tx, locked.account_id, locked.customer_id, cardToken);
      if (!saved) throw validation('the card could not be saved');
      locked.card_id = saved.id;
      // a charge behind, or the first period of a subscription made without a card, is due now
      this.subscriptions.retryNowWhenDue(locked);
      const after = await saveSubscription(tx, locked);
      return after.next_charge_at !== null && after.next_charge_at.getTime() <= Date.now();
    });
    // the charge due is made while the customer waits, as the scheduler would make it a moment later; one
    // being made meanwhile (by the scheduler, or this page in another tab) is waited for
    if (this.chargeNow) {
      await this.chargeNow(sub.id, due).catch((err: unknown) => {
        // already made, or ended meanwhile: the page shows where it stands
        if (err instanceof AppError && err.code === 'INVALID_STATUS') return;
        throw err;
      });
    }
    return this.view(token);
  }

  async cancelAtPeriodEnd(token: string): Promise<BillingView> {
    const sub = await this.find(token);
    await this.subscriptions.cancel(sub.account_id, sub.uuid, true);
    return this.view(token);
  }

  private async find(token: string): Promise<SubscriptionRow> {
    const sub = /^[A-Za-z0-9_-]{32}$/.test(token)
      ? await subscriptionByTokenHash(this.db, billingTokenHash(token))
      : null;
    if (!sub) throw notFound('Subscription not found');
    return sub;
  }

  private async viewOf(sub: SubscriptionRow): Promise<BillingView> {
    const who = (await subscribersOf(this.db, [sub])).get(sub.id)!;
    const cards = (await savedCardsOf(this.db, [sub.customer_id])).get(sub.customer_id) ?? [];
    const card = cards.find((c) => c.id === sub.card_id) ?? null;
    const periods = await periodsOfSales(this.db, sub.id);
    const sales = await Promise.all(
      (await salesOfSubscription(this.db, sub.uuid, 12)).map(async (text) => {
        const s = JSON.parse(text) as {
          id: number;
          uuid: string;
          status: string;
          amount: number;
          date: string;
          paymentMethod: string;
          pixKey: string | null;
          boleto?: { pdfUrl: string };
        };
        const open = s.status === 'PENDENTE';
        const pix = open && s.paymentMethod === 'PIX' ? s.pixKey : null;
        return {
          id: s.uuid,
          status: s.status,
          amountCents: Number(s.amount),
          date: s.date,
          period: periods.has(Number(s.id)) ? periodOf(sub, who.plan, periods.get(Number(s.id))!) : null,
          pixCopyPaste: pix,
          // drawn here, as the checkout page's: the customer's bank app reads it from the screen
          pixQrCode: pix ? await qrSvgDataUri(pix) : null,
          boletoPdfUrl: open && s.boleto ? s.boleto.pdfUrl : null,
        };
      }),
    );
    return {
      merchantName: (await accountName(this.db, sub.account_id)) ?? '',
      // the current period's plan, as the subscription shows it
      planName: who.currentPlan.name,
      amountCents: who.currentPlan.amount_cents,
      interval: who.currentPlan.interval,
      intervalCount: who.currentPlan.interval_count,
      status: sub.status,
      paymentMethod: sub.payment_method,
      currentPeriodStart: sub.current_period_start,
      currentPeriodEnd: sub.current_period_end,
      nextChargeAt: shownNextChargeAt(sub),
      nextChargeDue: nextChargeDue(sub, who.nextPlan ?? who.plan, this.subscriptions.boletoDaysBefore),
      nextPlan: nextPlanOf(sub, who),
      cancelAtPeriodEnd: sub.cancel_at_period_end,
      card: card && {
        brand: card.brand,
        lastFour: card.lastFour,
        expMonth: card.expMonth,
        expYear: card.expYear,
      },
      sales,
    };
  }
}
