import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { type BoletoAddressIn, BoletoInputError, boletoAddress } from '../boletos/index.js';
import { type SavedCardView, savedCardsOf } from '../cards/index.js';
import { type CustomerRow, customersById, findCustomer } from '../customers/index.js';
import { findRecurrence, type MandateCharges, type RecurrenceRow, recurrencesById } from '../pix/index.js';
import { seal, unseal } from '../platform/crypto/sealed.js';
import { type Db, isUniqueViolation, type Queryable } from '../platform/db/db.js';
import { AppError, notFound, validation } from '../platform/errors/app-error.js';
import { isUuid } from '../platform/ids/public-ids.js';
import { encodeCursor } from '../platform/paging/pagination.js';
import { nameProblem } from '../platform/text/names.js';
import { addDays } from '../platform/time/calendar.js';
import { checkChargesOf, saleFees } from '../sales/index.js';
import { type NotificationFact, recordNotification } from '../webhooks/index.js';
import {
  type CancelReason,
  findPlan,
  findSubscription,
  insertPlan,
  insertSubscription,
  listPlans,
  listSubscriptions,
  lockLiveOf,
  lockSubscription,
  mandatesInUse,
  openCharges,
  type PlanRow,
  pauseAccountSubscriptions,
  plansById,
  type SplitRules,
  type SubscriptionMethod,
  type SubscriptionRow,
  saveSubscription,
  saveSubscriptions,
  updatePlan,
} from './data.js';
import { mailCardWanted, mailStarted, type SubscriptionMail } from './mails.js';
import { freeMandatesOf } from './mandates.js';
import {
  INCOMPLETE_HOURS,
  type Interval,
  type LocalDate,
  localDateOf,
  periodDate,
  startOf,
} from './periods.js';

export interface PlanInput {
  name: string;
  amountCents: number;
  interval: Interval;
  intervalCount?: number;
  trialDays?: number;
  methods: SubscriptionMethod[];
}

export interface PlanView {
  id: string;
  name: string;
  amountCents: number;
  interval: Interval;
  intervalCount: number;
  trialDays: number;
  methods: SubscriptionMethod[];
  active: boolean;
  createdAt: string;
}

export interface SubscriptionInput {
  customerId: string;
  planId: string;
  paymentMethod: SubscriptionMethod;
  cardId?: string;
  startDate?: string;
  address?: Record<string, string>;
  idRec?: string;
  split?: SplitRules;
}

/**
 * When the subscription's next charge is made, as its views say it (the API's, the billing page's): ending at its
 * period's end with that period paid (or its trial), it charges nothing more, so null; the time the scheduler
 * keeps then (when it ends it, or a later period's issue date until a declined charge's outcome is applied) is
 * no charge's.
 */
export function shownNextChargeAt(
  s: Pick<SubscriptionRow, 'cancel_at_period_end' | 'status' | 'next_charge_at'>,
): string | null {
  return s.cancel_at_period_end && (s.status === 'active' || s.status === 'trialing')
    ? null
    : (s.next_charge_at?.toISOString() ?? null);
}

export interface SubscriptionView {
  id: string;
  customerId: string;
  planId: string;
  nextPlanId: string | null;
  paymentMethod: SubscriptionMethod;
  cardId: string | null;
  /** The Pix Automático mandate a PIX subscription's periods are debited through; null: charges with due date. */
  idRec: string | null;
  status: SubscriptionRow['status'];
  amountCents: number;
  currentPeriodStart: LocalDate;
  currentPeriodEnd: LocalDate;
  nextChargeAt: string | null;
  trialEnd: LocalDate | null;
  cancelAtPeriodEnd: boolean;
  canceledAt: string | null;
  split: SubscriptionRow['split'];
  cancelReason: SubscriptionRow['cancel_reason'];
  billingUrl: string | null;
  createdAt: string;
}

export const planView = (p: PlanRow): PlanView => ({
  id: p.uuid,
  name: p.name,
  amountCents: p.amount_cents,
  interval: p.interval,
  intervalCount: p.interval_count,
  trialDays: p.trial_days,
  methods: p.methods,
  active: p.active,
  createdAt: p.created_at.toISOString(),
});

export const billingTokenHash = (token: string) => createHash('sha256').update(token).digest();

/** What a subscription's views and notifications read besides its own row. */
export interface Subscriber {
  customer: CustomerRow;
  /** The plan being billed (the next period's once its first try has begun). */
  plan: PlanRow;
  nextPlan: PlanRow | null;
  /** The plan the current period was charged at: what the subscription shows as its plan. */
  currentPlan: PlanRow;
  mandate: RecurrenceRow | null;
}

/** Reads the customer and plans of each subscription, in one query each. */
export async function subscribersOf(q: Queryable, subs: SubscriptionRow[]): Promise<Map<number, Subscriber>> {
  const plans = await plansById(q, [
    ...new Set(
      subs.flatMap((s) => [
        s.plan_id,
        ...(s.next_plan_id ? [s.next_plan_id] : []),
        s.current_plan_id ?? s.plan_id,
      ]),
    ),
  ]);
  const customers = await customersById(q, [...new Set(subs.map((s) => s.customer_id))]);
  const mandates = await recurrencesById(q, [
    ...new Set(subs.flatMap((s) => (s.recurrence_id === null ? [] : [s.recurrence_id]))),
  ]);
  const out = new Map<number, Subscriber>();
  for (const s of subs) {
    out.set(s.id, {
      customer: customers.get(s.customer_id)!,
      plan: plans.get(s.plan_id)!,
      nextPlan: s.next_plan_id ? plans.get(s.next_plan_id)! : null,
      currentPlan: plans.get(s.current_plan_id ?? s.plan_id)!,
      mandate: s.recurrence_id === null ? null : (mandates.get(s.recurrence_id) ?? null),
    });
  }
  return out;
}

/**
 * The plan a change moves the subscription to, and the first day of the period it starts with: the plan of a
 * period billed already (its Pix or boleto issued ahead, or a card period in dunning) while the current period
 * is still at the plan before; else the plan waiting in `next_plan_id`, which starts with the next period whose
 * first try has not begun (of an incomplete subscription, its second). Null when no change is coming.
 */
export function upcomingPlan(
  sub: SubscriptionRow,
  who: Subscriber,
): { plan: PlanRow; from: LocalDate } | null {
  // the latest change asked for first: one made after the next period was billed at an earlier change starts
  // with the period after it (that period's charge, at its own price, is listed with the sales)
  if (who.nextPlan) {
    const n = sub.attempt > 0 || sub.status === 'incomplete' ? sub.period_index + 1 : sub.period_index;
    return { plan: who.nextPlan, from: periodOf(sub, who.nextPlan, n).start };
  }
  if (who.plan.id !== who.currentPlan.id) {
    return { plan: who.plan, from: periodOf(sub, who.plan, sub.period_index).start };
  }
  return null;
}

/** A subscription that ends (at its period's end) or has ended: no plan change will ever take effect. */
const endsOrEnded = (s: SubscriptionRow) => isFinal(s.status) || s.cancel_at_period_end;

/** A subscription as notifications tell it: the view without the subscriber's page link. */
export type SubscriptionBody = Omit<SubscriptionView, 'billingUrl'>;

export function subscriptionBody(s: SubscriptionRow, who: Subscriber): SubscriptionBody {
  return {
    id: s.uuid,
    customerId: who.customer.uuid,
    // the current period's plan, and the change coming (`upcomingPlan`; none for a subscription that ends)
    planId: who.currentPlan.uuid,
    nextPlanId: endsOrEnded(s) ? null : (upcomingPlan(s, who)?.plan.uuid ?? null),
    paymentMethod: s.payment_method,
    cardId: s.card_id,
    idRec: who.mandate?.id_rec ?? null,
    status: s.status,
    amountCents: who.currentPlan.amount_cents,
    currentPeriodStart: s.current_period_start,
    currentPeriodEnd: s.current_period_end,
    nextChargeAt: shownNextChargeAt(s),
    trialEnd: s.trial_end,
    cancelAtPeriodEnd: s.cancel_at_period_end,
    canceledAt: s.canceled_at?.toISOString() ?? null,
    split: s.split,
    cancelReason: s.cancel_reason,
    createdAt: s.created_at.toISOString(),
  };
}

export function subscriptionView(
  s: SubscriptionRow,
  who: Subscriber,
  keys: { secretsKey: Buffer; publicUrl: string },
): SubscriptionView {
  const { createdAt, ...body } = subscriptionBody(s, who);
  return {
    ...body,
    billingUrl: `${keys.publicUrl}/billing/${unseal(keys.secretsKey, s.billing_token_sealed)}`,
    createdAt,
  };
}

/** The São Paulo dates of a subscription's period n. */
export function periodOf(s: Pick<SubscriptionRow, 'anchor_date'>, plan: PlanRow, n: number) {
  return {
    start: periodDate(s.anchor_date, plan.interval, plan.interval_count, n),
    end: periodDate(s.anchor_date, plan.interval, plan.interval_count, n + 1),
  };
}

/**
 * When period n's charge is made: a card's at its first day's start in São Paulo; the charges with a due date
 * (a boleto, a PIX cobv), due on that first day, `boletoDaysBefore` days earlier; a Pix Automático cycle, debited
 * on that first day, as many days earlier but within the 2 to 10 days the arrangement asks of its scheduling.
 */
export function chargeTimeOf(
  s: Pick<SubscriptionRow, 'anchor_date' | 'payment_method' | 'recurrence_id'>,
  plan: PlanRow,
  n: number,
  boletoDaysBefore: number,
): Date {
  const start = periodOf(s, plan, n).start;
  if (s.payment_method === 'CREDIT_CARD') return startOf(start);
  const lead = s.recurrence_id === null ? boletoDaysBefore : Math.min(10, Math.max(2, boletoDaysBefore));
  return startOf(addDays(start, -lead));
}

export type SubscriptionEvent =
  | 'subscription.created'
  | 'subscription.activated'
  | 'subscription.renewed'
  | 'subscription.past_due'
  | 'subscription.unpaid'
  | 'subscription.incomplete_expired'
  | 'subscription.canceled'
  | 'invoice.paid'
  | 'invoice.failed';

export interface Invoice {
  saleId: string | null;
  periodStart: string;
  periodEnd: string;
  amountCents: number;
  attempt: number;
}

/** A subscription.* or invoice.* fact: the subscription told without its page link (never to webhooks). */
export function subscriptionFact(
  event: SubscriptionEvent,
  subscription: SubscriptionBody | SubscriptionView,
  accountId: number,
  subjectId: number,
  invoice?: Invoice,
): NotificationFact {
  const { billingUrl: _customerLink, ...body } = subscription as SubscriptionView;
  return {
    accountId,
    event,
    subjectType: 'subscription',
    subjectId,
    webhookBody: { ...body, ...(invoice ? { invoice } : {}), type: 'SUBSCRIPTION' },
  };
}

/** Records a subscription.* or invoice.* fact (the caller's transaction: the outbox). */
export async function notifySubscription(
  tx: Queryable,
  event: SubscriptionEvent,
  subscription: SubscriptionBody | SubscriptionView,
  accountId: number,
  subjectId: number,
  invoice?: Invoice,
): Promise<void> {
  await recordNotification(tx, subscriptionFact(event, subscription, accountId, subjectId, invoice));
}

/** Statuses that charge nothing more, ever: a new subscription is needed. */
export const isFinal = (status: SubscriptionRow['status']) =>
  status === 'canceled' || status === 'incomplete_expired';

/** Ends a subscription (in memory: the caller saves it): nothing more is charged or looked at. */
export function endSubscription(
  sub: SubscriptionRow,
  status: 'canceled' | 'incomplete_expired',
  reason: CancelReason | null,
): void {
  sub.status = status;
  sub.canceled_at = status === 'canceled' ? new Date() : sub.canceled_at;
  sub.cancel_reason = status === 'canceled' ? reason : null;
  sub.next_charge_at = null;
  sub.lease_until = null;
  sub.incomplete_expires_at = null;
}

const MAX_AMOUNT = 100_000_000;
const METHODS: readonly SubscriptionMethod[] = ['CREDIT_CARD', 'PIX', 'BOLETO'];

/** A plan's name: printed in its subscribers' e-mails, so checked as every printed name (400 naming it). */
function planName(raw: string): string {
  const name = raw.trim();
  if (!name) throw validation('name must not be blank');
  const problem = nameProblem(name, { maxLength: 200 });
  if (problem) throw validation(`name ${problem}`);
  return name;
}
/** A merchant's plans and subscriptions (API keys); another account's are not found. */
export class Subscriptions {
  constructor(
    private readonly db: Db,
    private readonly settings: {
      secretsKey: Buffer;
      publicUrl: string;
      boletoDaysBefore: number;
      /**
       * Makes an open PIX or boleto charge unpayable (its sale CANCELADO, removed at the PSP): what a
       * subscription cancelled now leaves open. Its failures are the caller's to log; the charge then expires.
       */
      cancelOpenCharge?: (accountId: number, saleId: number) => Promise<void>;
      /** Which Pix Automático mandates can charge a PIX subscription here (none without it). */
      mandates?: MandateCharges | null;
      /** Where the customer's e-mails are queued: a card subscription without a card asks for it (none: not sent). */
      mail?: SubscriptionMail;
    },
  ) {}

  async createPlan(accountId: number, input: PlanInput): Promise<PlanView> {
    const methods = [...new Set(input.methods)];
    if (methods.length === 0 || methods.some((m) => !METHODS.includes(m))) {
      throw validation('methods must list at least one of CREDIT_CARD, PIX, BOLETO');
    }
    if (!Number.isInteger(input.amountCents) || input.amountCents < 1 || input.amountCents > MAX_AMOUNT) {
      throw validation(`amountCents must be a whole number of cents from 1 to ${MAX_AMOUNT}`);
    }
    const name = planName(input.name);
    // every period is a sale of this amount: one whose fee takes it whole could never be charged
    for (const paymentMethod of methods)
      await saleFees(this.db, accountId, input.amountCents, { paymentMethod });
    return planView(
      await insertPlan(this.db, {
        uuid: randomUUID(),
        account_id: accountId,
        name,
        amount_cents: input.amountCents,
        interval: input.interval,
        interval_count: input.intervalCount ?? 1,
        trial_days: input.trialDays ?? 0,
        methods,
      }),
    );
  }

  async plans(accountId: number, before: number | null, limit: number) {
    const rows = await listPlans(this.db, accountId, before, limit);
    const kept = rows.slice(0, limit);
    return {
      data: kept.map(planView),
      nextCursor: rows.length > limit ? encodeCursor(kept[kept.length - 1]!.id) : null,
    };
  }

  async plan(accountId: number, id: string): Promise<PlanView> {
    return planView(await this.ownedPlan(this.db, accountId, id));
  }

  /** Renames or (de)activates a plan; its amount never changes (a new price is a new plan). */
  async updatePlan(accountId: number, id: string, change: { name?: string; active?: boolean }) {
    const plan = await this.ownedPlan(this.db, accountId, id);
    const name = change.name === undefined ? undefined : planName(change.name);
    return planView(await updatePlan(this.db, plan.id, { name, active: change.active }));
  }

  async create(accountId: number, input: SubscriptionInput): Promise<SubscriptionView> {
    return this.db.tx(async (tx) => {
      const customer = isUuid(input.customerId)
        ? await findCustomer(tx, accountId, input.customerId.toLowerCase())
        : null;
      if (!customer) throw validation('customerId is not a customer of this account');
      const plan = await this.ownedPlan(tx, accountId, input.planId, 'planId');
      if (!plan.active) throw validation('planId is an inactive plan: it takes no new subscriptions');
      if (!plan.methods.includes(input.paymentMethod)) {
        throw validation(
          `paymentMethod ${input.paymentMethod} is not one of the plan's methods (${plan.methods.join(', ')})`,
        );
      }
      const card = await this.checkCard(tx, input.paymentMethod, customer.id, input.cardId);
      const cardId = card?.id ?? null;
      // the split is checked as a charge's of the plan's amount by this method: every period's sale carries it
      await checkChargesOf(tx, accountId, input.split, [
        { amount: plan.amount_cents, method: { paymentMethod: input.paymentMethod, installments: 1 } },
      ]);
      const address = input.paymentMethod === 'BOLETO' ? payerAddress(input.address) : null;
      const mandate = await this.mandateOf(tx, accountId, input, customer, plan);
      const today = localDateOf(new Date());
      const start = input.startDate ?? today;
      if (!/^\d{4}-\d{2}-\d{2}$/.test(start) || addDays(start, 0) !== start) {
        throw validation('startDate must be a date (YYYY-MM-DD)');
      }
      if (start < today || start > addDays(today, 365)) {
        throw validation('startDate must be from today to a year from today (São Paulo dates)');
      }
      const trialEnd = plan.trial_days > 0 ? addDays(start, plan.trial_days) : null;
      const anchor = trialEnd ?? start;
      const first = periodDate(anchor, plan.interval, plan.interval_count, 1);
      const token = randomBytes(24).toString('base64url');
      const row = await insertSubscription(tx, {
        uuid: randomUUID(),
        accountId,
        customerId: customer.id,
        planId: plan.id,
        method: input.paymentMethod,
        cardId,
        address,
        // incomplete until its first period is paid (trialing first when the plan has a trial)
        status: trialEnd ? 'trialing' : 'incomplete',
        anchor,
        trialEnd,
        periodStart: start,
        periodEnd: trialEnd ?? first,
        nextChargeAt: new Date(0),
        billingTokenHash: billingTokenHash(token),
        billingTokenSealed: seal(this.settings.secretsKey, token),
        recurrenceId: mandate?.id ?? null,
        split: input.split ?? null,
      }).catch((err: unknown) => {
        // another subscription made at the same time took the mandate (one live subscription per mandate)
        if (
          isUniqueViolation(err) &&
          (err as { constraint?: string }).constraint === 'subscriptions_recurrence_idx'
        )
          throw validation('idRec already pays for another subscription that is not canceled');
        throw err;
      });
      // a first period starting within the lead of its Pix or boleto is charged now, not at a time gone by
      const firstCharge = chargeTimeOf(row, plan, 0, this.settings.boletoDaysBefore);
      row.next_charge_at = firstCharge.getTime() < Date.now() ? new Date() : firstCharge;
      const cardWanted = input.paymentMethod === 'CREDIT_CARD' && cardId === null;
      if (cardWanted && row.status === 'incomplete') {
        // the first period is charged when the customer gives the card on their page, within the usual deadline
        row.next_charge_at = null;
        row.incomplete_expires_at = new Date(Date.now() + INCOMPLETE_HOURS * 3_600_000);
      }
      const saved = await saveSubscription(tx, row);
      const who = { customer, plan, nextPlan: null, currentPlan: plan, mandate };
      const view = subscriptionView(saved, who, this.settings);
      await notifySubscription(tx, 'subscription.created', view, accountId, saved.id);
      if (this.settings.mail) {
        if (cardWanted) await mailCardWanted(tx, this.settings.mail, saved, who);
        // charged by itself: no other e-mail would give the customer their page before the money moves
        else if (card) await mailStarted(tx, this.settings.mail, saved, who, { card });
        else if (mandate && this.settings.mandates) {
          // the first period's sale is due on its first day, or today when that day has come
          const dueDate = saved.anchor_date < today ? today : saved.anchor_date;
          const way = await this.settings.mandates.firstPeriodWay(tx, mandate, plan.amount_cents, dueDate);
          await mailStarted(tx, this.settings.mail, saved, who, { mandate: { way, dueDate } });
        }
      }
      return view;
    });
  }

  /** Days before its period a Pix or boleto period is charged (`BOLETO_DAYS_BEFORE`). */
  get boletoDaysBefore(): number {
    return this.settings.boletoDaysBefore;
  }

  async one(accountId: number, id: string): Promise<SubscriptionView> {
    const sub = await this.owned(this.db, accountId, id);
    return (await this.views(this.db, [sub]))[0]!;
  }

  async list(
    accountId: number,
    filter: { before: number | null; limit: number; customerId?: string; status?: string },
  ) {
    let customerId: number | null = null;
    if (filter.customerId !== undefined) {
      const customer = isUuid(filter.customerId)
        ? await findCustomer(this.db, accountId, filter.customerId.toLowerCase())
        : null;
      if (!customer) return { data: [], nextCursor: null };
      customerId = customer.id;
    }
    const rows = await listSubscriptions(this.db, accountId, { ...filter, customerId });
    const kept = rows.slice(0, filter.limit);
    return {
      data: await this.views(this.db, kept),
      nextCursor: rows.length > filter.limit ? encodeCursor(kept[kept.length - 1]!.id) : null,
    };
  }

  /**
   * Cancels now (no more charges; subscription.canceled; a PIX or boleto charge it left open is cancelled too,
   * so that nobody pays for a subscription that has ended) or at the period's end (`atPeriodEnd`: the charge
   * that would start the next period cancels it instead). A cancelled subscription stays as it is.
   */
  async cancel(accountId: number, id: string, atPeriodEnd: boolean): Promise<SubscriptionView> {
    const { view, ended, laterThan } = await this.db.tx(async (tx) => {
      const found = await this.owned(tx, accountId, id);
      const sub = (await lockSubscription(tx, found.id))!;
      if (isFinal(sub.status))
        return { view: (await this.views(tx, [sub]))[0]!, ended: null, laterThan: null };
      if (atPeriodEnd) {
        sub.cancel_at_period_end = true;
        const saved = await saveSubscription(tx, sub);
        // a charge already issued for a period not started yet (a Pix or boleto sent days before it) would
        // start the period the customer just declined: it is made unpayable, the current period's left as it is
        const [who] = (await subscribersOf(tx, [saved])).values();
        const today = localDateOf(new Date());
        const later = who
          ? (await openCharges(tx, 10, 0, { subscriptionId: saved.id }))
              .filter((c) => periodOf(saved, who.plan, c.period_index).start > today)
              .map((c) => c.id)
          : [];
        return { view: (await this.views(tx, [saved]))[0]!, ended: saved, laterThan: later };
      }
      return { view: await this.cancelNow(tx, sub), ended: sub, laterThan: null };
    });
    if (ended !== null && (laterThan === null || laterThan.length > 0)) {
      await this.cancelOpenCharges(
        { id: ended.id, account_id: accountId, payment_method: view.paymentMethod },
        laterThan ?? undefined,
      );
    }
    return view;
  }

  /**
   * A PIX or boleto charge an ended subscription left open is made unpayable (a card's is never open); `only`:
   * those tries alone (the periods a cancellation at the period's end declined).
   */
  async cancelOpenCharges(
    sub: Pick<SubscriptionRow, 'id' | 'account_id' | 'payment_method'>,
    only?: number[],
  ): Promise<void> {
    if (!this.settings.cancelOpenCharge || sub.payment_method === 'CREDIT_CARD') return;
    const open = await openCharges(this.db, 10, 0, {
      subscriptionId: sub.id,
      ...(only ? { chargeIds: only } : {}),
    });
    for (const charge of open) {
      await this.settings.cancelOpenCharge(sub.account_id, charge.sale_id!);
    }
  }

  /**
   * An account suspended: its subscriptions' charges wait (no try, no dunning) until it is active again, in the
   * caller's transaction.
   */
  async pauseAllOf(tx: Queryable, accountId: number): Promise<void> {
    await pauseAccountSubscriptions(tx, accountId, true);
  }

  /**
   * An account active again after a suspension (the caller's transaction): its subscriptions charge again, and
   * one whose due periods passed meanwhile is charged for the current period alone (the missed ones are not).
   */
  async resumeAllOf(tx: Queryable, accountId: number): Promise<void> {
    await pauseAccountSubscriptions(tx, accountId, false);
    const live = await lockLiveOf(tx, accountId);
    const who = await subscribersOf(tx, live);
    const today = localDateOf(new Date());
    const moved: SubscriptionRow[] = [];
    for (const sub of live) {
      // a try under way, or dunning, goes on as it was
      if (sub.attempt !== 0 || sub.lease_until !== null || sub.next_charge_at === null) continue;
      const plan = who.get(sub.id)!.plan;
      let n = sub.period_index;
      while (periodOf(sub, plan, n).end <= today) n++;
      if (n === sub.period_index) continue;
      sub.period_index = n;
      const due = chargeTimeOf(sub, plan, n, this.settings.boletoDaysBefore);
      sub.next_charge_at = due.getTime() < Date.now() ? new Date() : due;
      moved.push(sub);
    }
    await saveSubscriptions(tx, moved);
  }

  /**
   * An account closed: every subscription that may still charge is canceled (reason account_closed,
   * subscription.canceled), in the caller's transaction. Their open charges are the caller's to cancel once it
   * commits (the account's open charges all are).
   */
  async cancelAllOf(tx: Queryable, accountId: number): Promise<number> {
    const live = await lockLiveOf(tx, accountId);
    for (const sub of live) await this.cancelNow(tx, sub, 'account_closed');
    return live.length;
  }

  async cancelNow(
    tx: Queryable,
    sub: SubscriptionRow,
    reason: CancelReason = 'requested',
  ): Promise<SubscriptionView> {
    endSubscription(sub, 'canceled', reason);
    const saved = await saveSubscription(tx, sub);
    const [view] = await this.views(tx, [saved]);
    await notifySubscription(tx, 'subscription.canceled', view!, saved.account_id, saved.id);
    return view!;
  }

  /** PATCH: a new plan from the next period on, and/or another saved card of the customer from now on. */
  async update(
    accountId: number,
    id: string,
    change: { planId?: string; cardId?: string },
  ): Promise<SubscriptionView> {
    return this.db.tx(async (tx) => {
      const found = await this.owned(tx, accountId, id);
      const sub = (await lockSubscription(tx, found.id))!;
      if (isFinal(sub.status)) {
        throw new AppError(
          'INVALID_STATUS',
          `this subscription is ${sub.status} and cannot change: start a new one`,
        );
      }
      if (change.planId !== undefined) {
        const plan = await this.ownedPlan(tx, accountId, change.planId, 'planId');
        if (!plan.active) throw validation('planId is an inactive plan');
        if (!plan.methods.includes(sub.payment_method)) {
          throw validation(`the plan does not take ${sub.payment_method}, this subscription's method`);
        }
        const [current] = (await subscribersOf(tx, [sub])).values();
        if (
          plan.interval !== current!.plan.interval ||
          plan.interval_count !== current!.plan.interval_count
        ) {
          throw validation(
            `planId must bill every ${current!.plan.interval_count} ${current!.plan.interval}(s) as the current plan does: the periods keep their dates`,
          );
        }
        // the split must fit the new plan's amount as it fitted the old one's
        await checkChargesOf(tx, accountId, sub.split ?? undefined, [
          { amount: plan.amount_cents, method: { paymentMethod: sub.payment_method, installments: 1 } },
        ]);
        sub.next_plan_id = plan.id === sub.plan_id ? null : plan.id;
      }
      if (change.cardId !== undefined) {
        sub.card_id =
          (await this.checkCard(tx, sub.payment_method, sub.customer_id, change.cardId))?.id ?? null;
        this.retryNowWhenDue(sub);
      }
      return (await this.views(tx, [await saveSubscription(tx, sub)]))[0]!;
    });
  }

  /**
   * A new card on a subscription behind on payment is tried at once (unpaid and refused incomplete ones
   * included), and so is the first period of one made without a card, which waited for it.
   */
  retryNowWhenDue(sub: SubscriptionRow): void {
    const behind = sub.status === 'past_due' || sub.status === 'unpaid';
    const refusedFirst = sub.status === 'incomplete' && sub.attempt > 0 && sub.lease_until === null;
    const waitedForCard = sub.status === 'incomplete' && sub.attempt === 0 && sub.next_charge_at === null;
    if (behind || refusedFirst || waitedForCard) sub.next_charge_at = new Date();
  }

  async views(q: Queryable, subs: SubscriptionRow[]): Promise<SubscriptionView[]> {
    const who = await subscribersOf(q, subs);
    return subs.map((s) => subscriptionView(s, who.get(s.id)!, this.settings));
  }

  async checkCard(
    q: Queryable,
    method: SubscriptionMethod,
    customerId: number,
    cardId: string | undefined,
  ): Promise<SavedCardView | null> {
    if (method !== 'CREDIT_CARD') {
      if (cardId !== undefined) throw validation('cardId applies to CREDIT_CARD subscriptions only');
      return null;
    }
    // none: the customer gives the card on their billing page (create only; a change names the card)
    if (cardId === undefined) return null;
    const cards = (await savedCardsOf(q, [customerId])).get(customerId) ?? [];
    const card = cards.find((c) => c.id === cardId.toLowerCase());
    if (!card) throw validation('cardId is not a saved card of this customer');
    return card;
  }

  /**
   * The Pix Automático mandate a new PIX subscription is debited through: the one `idRec` names (its payer the
   * customer, its amount the plan's, not paying for another live subscription, chargeable here: else 400), or
   * else the newest such mandate of the customer's CPF/CNPJ; none: charges with due date, e-mailed.
   */
  private async mandateOf(
    q: Queryable,
    accountId: number,
    input: SubscriptionInput,
    customer: CustomerRow,
    plan: PlanRow,
  ): Promise<RecurrenceRow | null> {
    const mandates = this.settings.mandates;
    if (input.idRec === undefined) {
      if (input.paymentMethod !== 'PIX' || !mandates) return null;
      const [newest] = await freeMandatesOf(q, mandates, accountId, customer.document, plan.amount_cents);
      return newest ?? null;
    }
    if (input.paymentMethod !== 'PIX') throw validation('idRec applies to PIX subscriptions only');
    const rec = await findRecurrence(q, accountId, input.idRec);
    if (!rec) throw validation('idRec is not a Pix Automático mandate of this account');
    if (rec.customer.document !== customer.document) {
      throw validation('idRec is a mandate of another payer: its CPF/CNPJ is not the customer’s');
    }
    if (rec.amount !== null && rec.amount !== plan.amount_cents) {
      throw validation(`idRec authorises ${rec.amount} cents a cycle; the plan charges ${plan.amount_cents}`);
    }
    if (!mandates?.usable(rec, plan.amount_cents)) {
      throw validation('idRec cannot be charged by this gateway’s PIX processor');
    }
    if ((await mandatesInUse(q, [rec.id])).size > 0) {
      throw validation('idRec already pays for another subscription that is not canceled');
    }
    return rec;
  }

  /** The account's subscription of this id; another account's is not found. */
  async owned(q: Queryable, accountId: number, id: string): Promise<SubscriptionRow> {
    const sub = isUuid(id) ? await findSubscription(q, accountId, id.toLowerCase()) : null;
    if (!sub) throw notFound('Subscription not found');
    return sub;
  }

  private async ownedPlan(q: Queryable, accountId: number, id: string, field?: string): Promise<PlanRow> {
    const plan = isUuid(id) ? await findPlan(q, accountId, id.toLowerCase()) : null;
    if (!plan)
      throw field ? validation(`${field} is not a plan of this account`) : notFound('Plan not found');
    return plan;
  }
}

/** The payer address printed on each of a BOLETO subscription's boletos, checked as a boleto's is. */
function payerAddress(raw: Record<string, string> | undefined): Record<string, string> {
  try {
    return { ...boletoAddress(raw as BoletoAddressIn | undefined, 'address') };
  } catch (err) {
    throw err instanceof BoletoInputError ? validation(err.message) : err;
  }
}
