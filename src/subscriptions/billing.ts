import { setTimeout as rest } from 'node:timers/promises';
import pLimit from 'p-limit';
import type { Logger } from 'pino';
import { BoletoInputError, type BoletoIssuer } from '../boletos/index.js';
import type { CardSales } from '../cards/index.js';
import type { MandateCharges, RecurrenceRow } from '../pix/index.js';
import type { SubscriptionSettings } from '../platform/config/config.js';
import { type Db, isUniqueViolation, type Queryable } from '../platform/db/db.js';
import { AppError, conflict, validation } from '../platform/errors/app-error.js';
import { addDays } from '../platform/time/calendar.js';
import { ALLOW, customerFacts, type RiskDecision, type RiskRules } from '../risk/index.js';
import {
  type BlockedChargeInput,
  createPixSale,
  findSaleRow,
  type PixChargeProcessor,
  type SaleOrigin,
  saleStatuses,
} from '../sales/index.js';
import { type NotificationFact, recordNotifications } from '../webhooks/index.js';
import {
  bindCharge,
  bindMandate,
  type ChargeRow,
  claimCharge,
  claimCharges,
  failUnsoldCharge,
  findCharge,
  hasTryUnderWay,
  lockCharges,
  lockDue,
  lockIncompleteExpired,
  lockSubscription,
  lockSubscriptions,
  openCharges,
  releaseClaim,
  retakeStaleClaim,
  type SubscriptionRow,
  saveSubscription,
  saveSubscriptions,
  setOutcome,
  setOutcomes,
} from './data.js';
import { mailCharge, mailFailure, type SubscriptionMail } from './mails.js';
import { freeMandatesOf } from './mandates.js';
import { brDate, INCOMPLETE_HOURS, localDateOf, startOf } from './periods.js';
import {
  chargeTimeOf,
  endSubscription,
  isFinal,
  notifySubscription,
  periodOf,
  type Subscriber,
  type SubscriptionEvent,
  type Subscriptions,
  subscribersOf,
  subscriptionBody,
  subscriptionFact,
} from './subscriptions.js';

/** The ways a period is charged; a method whose charger is missing fails its tries (logged once a round). */
export interface PeriodChargers {
  card: CardSales | null;
  pix: PixChargeProcessor | null;
  boleto: BoletoIssuer | null;
  /** PIX subscriptions whose customer authorised a Pix Automático mandate are debited through it. */
  mandates: MandateCharges | null;
  /**
   * The risk rules in force, for a PIX or boleto try (a card's are decided by the cards module): a try they block
   * is stored refused (`refuse`: RECUSADO, RISK_BLOCKED, bound to its try) and enters dunning as a refused card's.
   */
  risk: { rules: RiskRules; refuse: RefuseBlocked } | null;
}

/** Stores a sale a risk rule blocked, refused, bound to its try in the same transaction. */
export type RefuseBlocked = (
  accountId: number,
  input: BlockedChargeInput,
  decision: RiskDecision,
  origin: SaleOrigin,
  inTx: (tx: Queryable, saleId: number) => Promise<void>,
  /** The mandate the try would have debited: the refused sale is its cycle's (PIX_AUTOMATICO, its idRec). */
  recurrence?: { id: number; idRec: string; contrato: string },
) => Promise<unknown>;

/** How long a page's customer waits for a try the scheduler is making, and how often it is looked at. */
const TRY_AWAITED_MS = 10_000;
const TRY_POLL_MS = 200;
/** A try claimed longer ago than this is not waited for (a Pix or boleto one open for its payer). */
const TRY_RECENT_SECONDS = 60;

/** How long a claimed try is left to its scheduler before another takes it over (its sale not stored). */
export const CLAIM_LEASE_SECONDS = 300;
/** How often due subscriptions are looked for, and charges' outcomes applied (started with the workers). */
export const BILLING_EVERY_MS = 5_000;
/**
 * Due subscriptions claimed, charged and settled together (their card sales stored in one transaction, each in
 * a savepoint: kept under PostgreSQL's 64 cached subtransactions), and how many such groups run at once.
 */
const GROUP = 50;
const LANES = 2;
/** PIX and boleto charges made at once within a group (each its own transactions). */
const OTHERS_AT_ONCE = 8;
/** Open tries read per statement when looking for those whose sale has ended. */
const SCAN_PAGE = 1_000;

const PAID = new Set(['PAGO', 'ESTORNADO', 'CHARGEBACK', 'MED']);
const FAILED = new Set(['RECUSADO', 'FALHA', 'CANCELADO']);
const DAY_MS = 86_400_000;

interface Claimed {
  sub: SubscriptionRow;
  who: Subscriber;
  charge: ChargeRow;
}

/**
 * The scheduler: charges each due period once, whatever the number of schedulers. A try at a period is claimed
 * (a unique row) in the transaction that locks the subscription, before any sale exists; the sale is bound to
 * the claim in the transaction that stores it. A scheduler killed before that leaves a claim without a sale,
 * taken over after CLAIM_LEASE_SECONDS; one killed after leaves a sale whose outcome its own module settles (the
 * card jobs ask the acquirer), then `settle` applies it here.
 */
export class SubscriptionBiller {
  constructor(
    private readonly db: Db,
    private readonly subscriptions: Subscriptions,
    private readonly chargers: PeriodChargers,
    private readonly settings: SubscriptionSettings,
    private readonly mail: SubscriptionMail,
    private readonly log: Logger,
  ) {}

  /**
   * One round: every subscription due at `now` charged, in groups of `group` claimed together, `lanes` groups at
   * a time; each group's outcomes applied as soon as it is charged, then every other ended try's. Returns how
   * many tries were made.
   */
  async run(now = new Date(), group = GROUP, lanes = LANES): Promise<number> {
    let total = 0;
    let more = true;
    const lane = async () => {
      try {
        while (more) {
          const claimed = await this.claimDue(now, group);
          if (claimed.length < group) more = false;
          if (claimed.length === 0) return;
          await this.chargeGroup(claimed);
          total += claimed.length;
        }
      } catch (err) {
        more = false; // the other lanes stop after their group: the next round starts afresh
        throw err;
      }
    };
    const ended = await Promise.allSettled(Array.from({ length: lanes }, lane));
    const failed = ended.find((e) => e.status === 'rejected');
    if (failed) throw failed.reason;
    await this.settle();
    await this.expireIncomplete(now);
    return total;
  }

  /**
   * Incomplete subscriptions whose first period was not paid by their deadline end `incomplete_expired`
   * (subscription.incomplete_expired): nothing more is charged, and a PIX or boleto charge left open is cancelled
   * so that nobody pays for a subscription that has ended. Returns how many expired.
   */
  async expireIncomplete(now = new Date()): Promise<number> {
    let total = 0;
    for (;;) {
      const ended = await this.db.tx(async (tx) => {
        const subs = await lockIncompleteExpired(tx, now, GROUP);
        for (const sub of subs) endSubscription(sub, 'incomplete_expired', null);
        const saved = await saveSubscriptions(tx, subs);
        const who = await subscribersOf(tx, saved);
        await recordNotifications(
          tx,
          saved.map((s) =>
            subscriptionFact(
              'subscription.incomplete_expired',
              subscriptionBody(s, who.get(s.id)!),
              s.account_id,
              s.id,
            ),
          ),
        );
        return saved;
      });
      for (const sub of ended) await this.subscriptions.cancelOpenCharges(sub);
      total += ended.length;
      if (ended.length < GROUP) return total;
    }
  }

  /** A group's tries made (card sales together, the others a few at a time), then their outcomes applied. */
  private async chargeGroup(claimed: Claimed[]): Promise<void> {
    const cards = claimed.filter((c) => c.sub.payment_method === 'CREDIT_CARD');
    const limit = pLimit(OTHERS_AT_ONCE);
    await Promise.all([
      this.chargeCards(cards),
      ...claimed.filter((c) => !cards.includes(c)).map((c) => limit(() => this.charge(c))),
    ]);
    await this.settle({ chargeIds: claimed.map((c) => c.charge.id) });
  }

  /**
   * Sandbox: the subscription's next charge (or retry) made now, through the same claim and charge as the
   * scheduler's; its outcome applied before it answers.
   */
  async advance(accountId: number, id: string) {
    const sub = await this.subscriptions.owned(this.db, accountId, id);
    await this.chargeNow(sub.id);
    return this.subscriptions.one(accountId, sub.uuid);
  }

  /**
   * The subscription's next charge (or retry) made now, through the scheduler's own claim and charge, and its
   * outcome applied: the sandbox's advance, and the first period of a card subscription once its customer gave
   * the card on the billing page. CONFLICT while a charge is open or being made; INVALID_STATUS with none to make.
   */
  async chargeNow(subscriptionId: number, onPage = false): Promise<void> {
    const sub = { id: subscriptionId };
    await this.settle({ subscriptionId: sub.id, onPage });
    const open = await openCharges(this.db, 1, 0, { subscriptionId: sub.id });
    if (open.length > 0) {
      throw conflict(
        'the period’s charge is still open: a PIX or boleto awaiting its payment (pay it, or let it expire), or a card being charged (try again when it ends)',
      );
    }
    // claimed in the transaction that locks it: the running scheduler never sees it due meanwhile
    const claimed = await this.db.tx(async (tx) => {
      const locked = (await lockSubscription(tx, sub.id))!;
      if (isFinal(locked.status) || locked.next_charge_at === null) {
        throw new AppError(
          'INVALID_STATUS',
          `this subscription is ${locked.status}: it has no charge to make`,
        );
      }
      const who = (await subscribersOf(tx, [locked])).get(locked.id)!;
      const endsNow = locked.cancel_at_period_end;
      const claim = await this.claimOne(tx, locked, who, new Date());
      // nothing claimed and not cancelled: another request (or the scheduler) is making this try right now
      if (!claim && !endsNow)
        throw conflict('the subscription’s charge is being made: try again when it ends');
      return claim;
    });
    if (claimed?.sub.payment_method === 'CREDIT_CARD') await this.chargeCards([claimed]);
    else if (claimed) await this.charge(claimed);
    await this.settle({ subscriptionId: sub.id, onPage });
  }

  /**
   * For a person waiting on a page (the billing page, when its customer gives a card): the try due made now
   * (`chargeNow`), and a try another is making meanwhile (the running scheduler, the same page in another tab)
   * waited for, up to `waitMs`, so the page shows the period paid or refused rather than the subscription as
   * it was.
   */
  async chargeNowOrAwait(subscriptionId: number, due: boolean, waitMs = TRY_AWAITED_MS): Promise<void> {
    if (due) {
      try {
        await this.chargeNow(subscriptionId, true);
        return;
      } catch (err) {
        if (!(err instanceof AppError && err.code === 'CONFLICT')) throw err;
      }
    }
    const until = Date.now() + waitMs;
    for (;;) {
      await this.settle({ subscriptionId, onPage: true });
      if (!(await hasTryUnderWay(this.db, subscriptionId, TRY_RECENT_SECONDS)) || Date.now() >= until) return;
      await rest(TRY_POLL_MS);
    }
  }

  private async claimDue(now: Date, limit: number): Promise<Claimed[]> {
    return this.db.tx(async (tx) => {
      const due = await lockDue(tx, now, limit);
      const who = await subscribersOf(tx, due);
      // the common case, a period's first try, claimed for all in two statements; the others one by one
      const first = due.filter((sub) => !sub.cancel_at_period_end && sub.attempt === 0);
      const claimed: Claimed[] = [];
      for (const sub of due.filter((s) => !first.includes(s))) {
        const claim = await this.claimOne(tx, sub, who.get(sub.id)!, now);
        if (claim) claimed.push(claim);
      }
      for (const sub of first) this.startTry(sub, who.get(sub.id)!, now);
      const charges = await claimCharges(
        tx,
        first.map((sub) => ({ subscriptionId: sub.id, periodIndex: sub.period_index, attempt: sub.attempt })),
      );
      const bySub = new Map(charges.map((c) => [c.subscription_id, c]));
      for (const saved of await saveSubscriptions(tx, first)) {
        const charge = bySub.get(saved.id);
        if (charge) claimed.push({ sub: saved, who: who.get(saved.id)!, charge });
      }
      return claimed;
    });
  }

  /** A new try at the subscription's period: its attempt counted, a plan change applied, the lease taken. */
  private startTry(sub: SubscriptionRow, subscriber: Subscriber, now: Date): void {
    const attempt = sub.attempt + 1;
    // a plan change starts with the next period, charged at its first try: not with the first period of a
    // subscription still incomplete, which is its current period (a trial is the current period of one trialing)
    if (attempt === 1 && sub.next_plan_id !== null && sub.status !== 'incomplete') {
      // the current period stays the one paid at the plan before, and shows it, until this one is paid
      sub.current_plan_id = sub.current_plan_id ?? sub.plan_id;
      sub.plan_id = sub.next_plan_id;
      sub.next_plan_id = null;
      subscriber.plan = subscriber.nextPlan!;
      subscriber.nextPlan = null;
    }
    sub.attempt = attempt;
    // the lease: nobody looks at it again before it ends (its outcome sets the next charge)
    sub.lease_until = new Date(now.getTime() + CLAIM_LEASE_SECONDS * 1000);
    // what the merchant reads meanwhile: the next period's charge, should this one be paid
    sub.next_charge_at = chargeTimeOf(
      sub,
      subscriber.nextPlan ?? subscriber.plan,
      sub.period_index + 1,
      this.settings.boletoDaysBefore,
    );
    // the first paid period (a trial's end included) has its deadline from its first try
    if ((sub.status === 'incomplete' || sub.status === 'trialing') && sub.incomplete_expires_at === null) {
      sub.incomplete_expires_at = incompleteDeadline(
        sub,
        periodOf(sub, subscriber.plan, sub.period_index),
        now,
      );
    }
  }

  /**
   * In the caller's transaction, with the subscription locked: cancels one ending at its period's end, or claims
   * its next try (a new one, or a dead scheduler's claim whose lease ended) and leases it; null when there is
   * nothing to charge now (a try still under way).
   */
  private async claimOne(
    tx: Queryable,
    sub: SubscriptionRow,
    subscriber: Subscriber,
    now: Date,
  ): Promise<Claimed | null> {
    if (sub.cancel_at_period_end) {
      await this.subscriptions.cancelNow(tx, sub);
      return null;
    }
    let charge: ChargeRow | null = null;
    const last = sub.attempt > 0 ? await findCharge(tx, sub.id, sub.period_index, sub.attempt) : null;
    if (last && last.outcome === null) {
      // the last try is not over: its scheduler died before storing its sale (taken over once its lease
      // ended), or its sale awaits an outcome (the sale's own module settles it; nothing is tried again)
      if (last.sale_id === null && (await retakeStaleClaim(tx, last.id, CLAIM_LEASE_SECONDS))) charge = last;
      sub.lease_until = new Date(now.getTime() + CLAIM_LEASE_SECONDS * 1000);
    } else {
      this.startTry(sub, subscriber, now);
      charge = await claimCharge(tx, sub.id, sub.period_index, sub.attempt);
    }
    const saved = await saveSubscription(tx, sub);
    return charge ? { sub: saved, who: subscriber, charge } : null;
  }

  /** What a try's sale says, and the hook that binds it to the claim in the sale's own transaction. */
  private saleOf({ sub, who, charge }: Claimed) {
    const plan = who.plan;
    const period = periodOf(sub, plan, charge.period_index);
    const { name, email, document, phone } = who.customer;
    // a PIX or boleto try is due on the period's first day, or today for a late one (a retry)
    const dueDate = period.start < today() ? today() : period.start;
    return {
      period,
      dueDate,
      customer: { name, email, document, phone },
      items: [
        {
          // as the payer reads it, on the boleto and the receipt
          title: `${plan.name} (${brDate(period.start)} a ${brDate(period.end)})`,
          unitPrice: plan.amount_cents,
          quantity: 1,
          tangible: false,
        },
      ],
      origin: { subscriptionId: sub.uuid },
      // the subscription's split, carried by every period's sale as a charge's (undefined: none)
      split: sub.split ?? undefined,
      bind: async (tx: Queryable, saleId: number, mailed: boolean) => {
        if (!(await bindCharge(tx, charge.id, saleId))) {
          throw conflict('this try at the period was made by another scheduler');
        }
        if (mailed) {
          const sale = (await findSaleRow(tx, { kind: 'numeric', id: saleId }))!;
          await mailCharge(tx, this.mail, sub, who, sale, period, dueDate);
        }
      },
    };
  }

  /** Card tries charge the saved cards together (CardSales.openMany); one refused does not stop the others. */
  private async chargeCards(claimed: Claimed[]): Promise<void> {
    if (claimed.length === 0) return;
    const card = this.chargers.card;
    const ready = claimed.filter((c) => card && c.sub.card_id);
    for (const c of claimed.filter((c) => !ready.includes(c))) {
      await this.notCharged(
        c,
        card
          ? validation('the subscription has no saved card')
          : new AppError('PROCESSOR_UNAVAILABLE', 'no card acquirer is configured'),
      );
    }
    if (!card || ready.length === 0) return;
    const results = await card.openMany(
      ready.map((c) => {
        const { customer, items, origin, bind, split } = this.saleOf(c);
        return {
          accountId: c.sub.account_id,
          input: {
            amount: c.who.plan.amount_cents,
            paymentMethod: 'CREDIT_CARD' as const,
            card: { cardId: c.sub.card_id! },
            installments: 1,
            customer,
            items,
            split,
          },
          context: { origin, reserve: (tx: Queryable, saleId: number) => bind(tx, saleId, false) },
        };
      }),
      this.log,
    );
    for (const [i, result] of results.entries()) {
      if ('error' in result) await this.notCharged(ready[i]!, result.error);
    }
  }

  /**
   * Makes a PIX or boleto try's sale; a failure before the sale is stored leaves the claim to be taken over. A
   * period's first PIX try goes through the customer's mandate when there is one; its retries, and any period
   * the mandate cannot pay, are charges with due date e-mailed to the customer.
   */
  private async charge(claimed: Claimed): Promise<void> {
    const { sub } = claimed;
    const { dueDate, customer, items, origin, bind, split } = this.saleOf(claimed);
    const amount = claimed.who.plan.amount_cents;
    // the risk rules decide a PIX or boleto try as they decide an API charge of the same customer
    const risk = this.chargers.risk;
    const decision =
      risk?.rules.decide({
        method: sub.payment_method,
        amountCents: amount,
        ...customerFacts(customer),
        // no request of the payer's is behind a scheduled try: an address rule has nothing to match
        ip: null,
      }) ?? ALLOW;
    try {
      const mandate =
        sub.payment_method === 'PIX' && claimed.charge.attempt === 1 ? await this.mandateOf(claimed) : null;
      if (risk && decision.decision === 'block') {
        // stored as what it would have been: the mandate's cycle, or a charge of the subscription's method
        await risk.refuse(
          sub.account_id,
          { amount, paymentMethod: mandate ? 'PIX_AUTOMATICO' : sub.payment_method, customer, items },
          decision,
          origin,
          (tx, saleId) => bind(tx, saleId, false),
          mandate ? { id: mandate.id, idRec: mandate.id_rec, contrato: mandate.contrato } : undefined,
        );
        return;
      }
      const cycle =
        mandate &&
        (await this.chargers.mandates!.charge(mandate, {
          amount,
          customer,
          items,
          origin,
          split,
          dueDate,
          bind: (tx, saleId) => bind(tx, saleId, false),
          // the subscription's uuid keeps the key apart from another database's on the same PSP account
          tryKey: `subscription:${sub.uuid}:${claimed.charge.period_index}:${claimed.charge.attempt}`,
        }));
      if (cycle) return;
      if (sub.payment_method === 'PIX') {
        await createPixSale(
          this.db,
          this.chargers.pix,
          sub.account_id,
          { amount, paymentMethod: 'PIX', customer, items, split },
          null,
          {
            allowPrivateTargets: true,
            log: this.log,
            origin,
            reserve: (tx, saleId) => bind(tx, saleId, true),
            // a first period's Pix due the day it is made stays payable the next day too: the customer has the
            // 23 hours the subscription waits for it (`incompleteDeadline`, which cancels it then), not the hours
            // left until midnight
            due: { date: dueDate, daysAfter: firstPeriod(sub) && dueDate === today() ? 1 : 0 },
          },
        );
      } else {
        if (!this.chargers.boleto?.available) {
          throw new AppError('PROCESSOR_UNAVAILABLE', 'no PSP is configured to issue boletos');
        }
        await this.chargers.boleto.issue(
          sub.account_id,
          {
            amount,
            customer: { ...customer, address: sub.address as never },
            items,
            split,
            boleto: { dueDate },
          },
          { origin, bind: (tx, saleId) => bind(tx, saleId, true) },
        );
      }
    } catch (err) {
      // a boleto the customer's data cannot make (a bad CPF, an address refused) fails the try as a card would
      await this.notCharged(claimed, err instanceof BoletoInputError ? validation(err.message) : err);
    }
  }

  /**
   * The mandate that pays this PIX try: the subscription's own when it can charge the plan's amount here, or
   * else one the customer authorised since (the newest of their CPF/CNPJ that fits and pays for no other live
   * subscription), bound to it from now on. Its own that cannot (a plan of another amount) is let go.
   */
  private async mandateOf({ sub, who }: Claimed): Promise<RecurrenceRow | null> {
    const mandates = this.chargers.mandates;
    const amount = who.plan.amount_cents;
    if (!mandates) return null;
    if (who.mandate && mandates.usable(who.mandate, amount)) return who.mandate;
    const free = await freeMandatesOf(this.db, mandates, sub.account_id, who.customer.document, amount);
    for (const rec of free) {
      // a subscription binding the same mandate at the same moment wins it: this one looks at the next
      const bound = await bindMandate(this.db, sub.id, rec.id).catch((err: unknown) => {
        if (isUniqueViolation(err)) return false;
        throw err;
      });
      if (bound) return rec;
    }
    if (who.mandate) await bindMandate(this.db, sub.id, null);
    return null;
  }

  /**
   * A try whose sale could not be stored. The card or the customer's data can no longer make a sale: the try
   * failed and dunning goes on. Another scheduler made it: nothing to do. Anything else (no processor
   * configured, the database or the PSP unavailable) is not the customer's doing: the claim is left to be
   * taken over when its lease ends.
   */
  private async notCharged({ sub, who, charge }: Claimed, err: unknown): Promise<void> {
    if (err instanceof AppError && err.code === 'VALIDATION_ERROR') {
      await this.failUnsold(sub, who, charge, err.message);
      return;
    }
    if (err instanceof AppError && err.code === 'CONFLICT') return;
    if (err instanceof AppError && (err.code === 'ACCOUNT_SUSPENDED' || err.code === 'ACCOUNT_NOT_ACTIVE')) {
      // suspended (or put under review) after the claim: its renewals wait from now on, and this try with them,
      // made as soon as the account is active again rather than when the claim's lease ends
      await releaseClaim(this.db, charge.id);
      this.log.info(
        { subscription: sub.uuid, period: charge.period_index, attempt: charge.attempt, reason: err.code },
        'subscription charge refused by the account standing: tried again when the account is active',
      );
      return;
    }
    this.log.warn(
      { subscription: sub.uuid, period: charge.period_index, attempt: charge.attempt, err },
      'subscription charge not made: its claim is taken over when its lease ends',
    );
  }

  private async failUnsold(sub: SubscriptionRow, who: Subscriber, charge: ChargeRow, why: string) {
    this.log.warn({ subscription: sub.uuid, reason: why }, 'subscription charge could not be made');
    await this.db.tx(async (tx) => {
      const locked = (await lockSubscription(tx, sub.id))!;
      await failUnsoldCharge(tx, charge.id);
      await this.failed(tx, locked, who, charge, null);
    });
  }

  /**
   * Applies the outcome of every try whose sale reached an end (of one subscription, or among some tries, when
   * asked): paid → the period is the current one and the next is scheduled; failed → dunning.
   */
  async settle(
    only: {
      subscriptionId?: number;
      chargeIds?: number[];
      /** Applied for a customer waiting on their billing page, which shows a refusal: none is e-mailed. */
      onPage?: boolean;
    } = {},
  ): Promise<number> {
    let total = 0;
    let after = 0;
    for (;;) {
      const open = await openCharges(this.db, SCAN_PAGE, after, only);
      if (open.length === 0) return total;
      after = open[open.length - 1]!.id;
      const statuses = await saleStatuses(
        this.db,
        open.map((c) => c.sale_id!),
      );
      const ended = open.filter((c) => {
        const sale = statuses.get(c.sale_id!);
        return sale && (PAID.has(sale.status) || FAILED.has(sale.status));
      });
      for (let i = 0; i < ended.length; i += GROUP) {
        total += await this.applyOutcomes(
          ended.slice(i, i + GROUP).map((c) => c.id),
          statuses,
          only.subscriptionId !== undefined,
          only.onPage === true,
        );
      }
      if (open.length < SCAN_PAGE) return total;
    }
  }

  /**
   * Ended tries' outcomes applied in one transaction. Those another scheduler is applying are skipped, or, for
   * one subscription's own (`wait`: the sandbox's advance, a card given on the billing page, which answer with
   * the outcome applied), waited for: its answer never reads the subscription as it was before the outcome.
   */
  private async applyOutcomes(
    chargeIds: number[],
    statuses: Map<number, { status: string; uuid: string }>,
    wait: boolean,
    onPage: boolean,
  ): Promise<number> {
    return this.db.tx(async (tx) => {
      const charges = await lockCharges(tx, chargeIds, wait);
      const subs = await lockSubscriptions(tx, [...new Set(charges.map((c) => c.subscription_id))]);
      const who = await subscribersOf(tx, [...subs.values()]);
      // payments, the common outcome, are written together: one statement each for the tries, the
      // subscriptions and the facts
      const paid: number[] = [];
      const facts: NotificationFact[] = [];
      for (const charge of charges) {
        const sale = statuses.get(charge.sale_id!)!;
        const sub = subs.get(charge.subscription_id)!;
        if (PAID.has(sale.status)) {
          paid.push(charge.id);
          facts.push(...this.paid(sub, who.get(sub.id)!, charge, sale.uuid));
        } else {
          await this.failed(tx, sub, who.get(sub.id)!, charge, sale.uuid, onPage);
        }
      }
      await setOutcomes(tx, paid, 'paid');
      const touched = new Set(charges.filter((c) => paid.includes(c.id)).map((c) => c.subscription_id));
      await saveSubscriptions(
        tx,
        [...touched].map((id) => subs.get(id)!),
      );
      await recordNotifications(tx, facts);
      return charges.length;
    });
  }

  /** A paid try: the period becomes the current one and the next is scheduled; the facts to record. */
  private paid(
    sub: SubscriptionRow,
    who: Subscriber,
    charge: ChargeRow,
    saleUuid: string,
  ): NotificationFact[] {
    const period = periodOf(sub, who.plan, charge.period_index);
    const invoice = this.invoice(charge, period, who, saleUuid);
    // incomplete or trialing → active: the first paid period
    let activated = false;
    if (charge.period_index >= sub.period_index && !isFinal(sub.status)) {
      activated = sub.status === 'incomplete' || sub.status === 'trialing';
      sub.current_period_start = period.start;
      sub.current_period_end = period.end;
      // the period paid is the current one now, at the plan it was billed at
      sub.current_plan_id = sub.plan_id;
      who.currentPlan = who.plan;
      sub.period_index = charge.period_index + 1;
      sub.attempt = 0;
      sub.first_failed_at = null;
      sub.status = 'active';
      sub.lease_until = null;
      sub.incomplete_expires_at = null;
      sub.next_charge_at = chargeTimeOf(
        sub,
        who.nextPlan ?? who.plan,
        sub.period_index,
        this.settings.boletoDaysBefore,
      );
    }
    const body = subscriptionBody(sub, who);
    return [
      subscriptionFact('invoice.paid', body, sub.account_id, sub.id, invoice),
      ...(activated ? [subscriptionFact('subscription.activated', body, sub.account_id, sub.id)] : []),
      ...(charge.period_index > 0 && sub.status === 'active' && !activated
        ? [subscriptionFact('subscription.renewed', body, sub.account_id, sub.id)]
        : []),
    ];
  }

  private async failed(
    tx: Queryable,
    sub: SubscriptionRow,
    who: Subscriber,
    charge: ChargeRow,
    saleUuid: string | null,
    onPage = false,
  ) {
    await setOutcome(tx, charge.id, 'failed');
    const period = periodOf(sub, who.plan, charge.period_index);
    const invoice = this.invoice(charge, period, who, saleUuid);
    const current = charge.period_index === sub.period_index && charge.attempt === sub.attempt;
    // a subscription cancelled meanwhile had its open charge cancelled with it: no dunning e-mail for that
    const endedBefore = isFinal(sub.status);
    const events: SubscriptionEvent[] = [];
    if (current && !endedBefore) sub.lease_until = null;
    if (current && !endedBefore && sub.cancel_at_period_end) {
      // a period the customer declined after its charge was issued (a Pix or boleto sent days before it): that
      // charge was made unpayable, so no dunning and no e-mail; the subscription ends when the period would have
      // started (claimOne cancels it then)
      sub.next_charge_at = startOf(period.start);
      await saveSubscription(tx, sub);
      return;
    }
    if (current && !endedBefore && sub.status !== 'unpaid') {
      const now = new Date();
      if (charge.attempt === 1 || sub.first_failed_at === null) sub.first_failed_at = now;
      const retry = this.settings.retryDays[charge.attempt - 1];
      // a first paid period refused (after a trial too) is incomplete (retried as dunning); past_due and unpaid
      // are for renewals of a subscription that was once active
      const first = sub.status === 'incomplete' || sub.status === 'trialing';
      if (retry !== undefined) {
        if (!first && sub.status !== 'past_due') events.push('subscription.past_due');
        sub.status = first ? 'incomplete' : 'past_due';
        sub.next_charge_at = new Date(sub.first_failed_at.getTime() + retry * DAY_MS);
        // a card refused: its retries decide its end (after the last one), not the 23 hours a first period
        // awaiting payment has, which would end it before its first retry (decisions.md, "Statuses")
        if (first && sub.payment_method === 'CREDIT_CARD') sub.incomplete_expires_at = null;
      } else if (first) {
        endSubscription(sub, 'incomplete_expired', null);
        events.push('subscription.incomplete_expired');
      } else if (this.settings.cancelWhenUnpaid) {
        endSubscription(sub, 'canceled', 'unpaid');
        events.push('subscription.canceled');
      } else {
        sub.status = 'unpaid';
        sub.next_charge_at = null;
        events.push('subscription.unpaid');
      }
    } else if (current && sub.status === 'unpaid') {
      sub.next_charge_at = null; // a try after a new card failed too: it waits for the next one
    }
    const saved = await saveSubscription(tx, sub);
    const [view] = await this.subscriptions.views(tx, [saved]);
    await notifySubscription(tx, 'invoice.failed', view!, saved.account_id, saved.id, invoice);
    for (const event of events) await notifySubscription(tx, event, view!, saved.account_id, saved.id);
    // a customer giving a card on their page reads its refusal there, and may give another at once: an e-mail
    // of it would arrive after, perhaps once another card paid
    if (current && !endedBefore && !onPage) {
      await mailFailure(tx, this.mail, saved, who, view!, charge.attempt, saleUuid !== null);
    }
  }

  private invoice(
    charge: ChargeRow,
    period: { start: string; end: string },
    who: Subscriber,
    saleId: string | null,
  ) {
    return {
      saleId,
      periodStart: period.start,
      periodEnd: period.end,
      amountCents: who.plan.amount_cents,
      attempt: charge.attempt,
    };
  }
}

const today = () => localDateOf(new Date());

/** Whether a try is of the subscription's first paid period (one with a deadline to be paid by). */
const firstPeriod = (sub: SubscriptionRow) => sub.status === 'incomplete' || sub.status === 'trialing';

/**
 * When an incomplete subscription's first period must be paid by: 23 hours after its first try, and for a charge
 * with a due date (a boleto, a Pix cobv) not before that due date has ended in São Paulo, since a boleto paid on
 * its due date is reported a day or so later.
 */
function incompleteDeadline(sub: SubscriptionRow, period: { start: string }, now: Date): Date {
  const hours = new Date(now.getTime() + INCOMPLETE_HOURS * 3_600_000);
  if (sub.payment_method === 'CREDIT_CARD' || sub.recurrence_id !== null) return hours;
  const dueEnd = startOf(addDays(period.start < today() ? today() : period.start, 1));
  return dueEnd > hours ? dueEnd : hours;
}
