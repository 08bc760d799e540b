import type { Logger } from 'pino';
import type { BoletoIssuer } from '../boletos/index.js';
import type { CardSales } from '../cards/index.js';
import type { MailOutbox } from '../mail/index.js';
import type { SubscriptionSettings } from '../platform/config/config.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { AppError, conflict, validation } from '../platform/errors/app-error.js';
import { createPixSale, findSaleRow, type PixChargeProcessor, saleStatuses } from '../sales/index.js';
import {
  bindCharge,
  type ChargeRow,
  claimCharge,
  failUnsoldCharge,
  findCharge,
  lockDue,
  lockOpenCharges,
  lockSubscription,
  lockSubscriptions,
  retakeStaleClaim,
  type SubscriptionRow,
  saveSubscription,
  setOutcome,
} from './data.js';
import { mailCharge, mailFailure } from './mails.js';
import { localDateOf } from './periods.js';
import {
  chargeTimeOf,
  notifySubscription,
  periodOf,
  type Subscriber,
  type Subscriptions,
  subscribersOf,
} from './subscriptions.js';

/** The ways a period is charged; a method whose charger is missing fails its tries (logged once a round). */
export interface PeriodChargers {
  card: CardSales | null;
  pix: PixChargeProcessor | null;
  boleto: BoletoIssuer | null;
}

/** How long a claimed try is left to its scheduler before another takes it over (its sale not stored). */
export const CLAIM_LEASE_SECONDS = 300;
/** How often due subscriptions are looked for, and charges' outcomes applied (started with the workers). */
export const BILLING_EVERY_MS = 5_000;

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
    private readonly mail: MailOutbox & { publicUrl: string },
    private readonly log: Logger,
  ) {}

  /**
   * One round: every subscription due at `now` charged, `limit` claimed at a time and `parallel` charges at a
   * time; outcomes applied after each batch. Returns how many tries were made.
   */
  async run(now = new Date(), limit = 200, parallel = 16): Promise<number> {
    let total = 0;
    for (;;) {
      const claimed = await this.claimDue(now, limit);
      let next = 0;
      const workers = Array.from({ length: Math.min(parallel, claimed.length) }, async () => {
        while (next < claimed.length) await this.charge(claimed[next++]!);
      });
      await Promise.all(workers);
      await this.settle();
      total += claimed.length;
      if (claimed.length < limit) return total;
    }
  }

  /**
   * Sandbox: the subscription's next charge (or retry) made now, through the same claim and charge as the
   * scheduler's; its outcome applied before it answers.
   */
  async advance(accountId: number, id: string) {
    const sub = await this.subscriptions.owned(this.db, accountId, id);
    await this.settle(sub.id);
    const open = await this.db.tx((tx) => lockOpenCharges(tx, 1, sub.id));
    if (open.length > 0) throw conflict('the period’s charge is still open: pay it (or let it expire) first');
    // claimed in the transaction that locks it: the running scheduler never sees it due meanwhile
    const claimed = await this.db.tx(async (tx) => {
      const locked = (await lockSubscription(tx, sub.id))!;
      if (locked.status === 'canceled' || locked.next_charge_at === null) {
        throw new AppError('INVALID_STATUS', `a ${locked.status} subscription has no charge to make`);
      }
      const who = (await subscribersOf(tx, [locked])).get(locked.id)!;
      return this.claimOne(tx, locked, who, new Date());
    });
    if (claimed) await this.charge(claimed);
    await this.settle(sub.id);
    return this.subscriptions.one(accountId, sub.uuid);
  }

  private async claimDue(now: Date, limit: number): Promise<Claimed[]> {
    return this.db.tx(async (tx) => {
      const due = await lockDue(tx, now, limit);
      const who = await subscribersOf(tx, due);
      const claimed: Claimed[] = [];
      for (const sub of due) {
        const claim = await this.claimOne(tx, sub, who.get(sub.id)!, now);
        if (claim) claimed.push(claim);
      }
      return claimed;
    });
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
    } else {
      const attempt = sub.attempt + 1;
      if (attempt === 1 && sub.next_plan_id !== null) {
        // a plan change starts with the period it is first charged for
        sub.plan_id = sub.next_plan_id;
        sub.next_plan_id = null;
        subscriber.plan = subscriber.nextPlan!;
        subscriber.nextPlan = null;
      }
      charge = await claimCharge(tx, sub.id, sub.period_index, attempt);
      sub.attempt = attempt;
    }
    // the lease: nobody looks at it again before it ends (its outcome sets the next charge)
    sub.next_charge_at = new Date(now.getTime() + CLAIM_LEASE_SECONDS * 1000);
    const saved = await saveSubscription(tx, sub);
    return charge ? { sub: saved, who: subscriber, charge } : null;
  }

  /** Makes the claimed try's sale; a failure before the sale is stored leaves the claim to be taken over. */
  private async charge({ sub, who, charge }: Claimed): Promise<void> {
    const plan = who.plan;
    const period = periodOf(sub, plan, charge.period_index);
    const { name, email, document, phone } = who.customer;
    const customer = { name, email, document, phone };
    const items = [
      {
        title: `${plan.name} (${period.start} a ${period.end})`,
        unitPrice: plan.amount_cents,
        quantity: 1,
        tangible: false,
      },
    ];
    const origin = { subscriptionId: sub.uuid };
    const bind = async (tx: Queryable, saleId: number, mailed: boolean) => {
      if (!(await bindCharge(tx, charge.id, saleId))) {
        throw conflict('this try at the period was made by another scheduler');
      }
      if (mailed) {
        const sale = (await findSaleRow(tx, { kind: 'numeric', id: saleId }))!;
        await mailCharge(tx, this.mail, sub, who, sale, period);
      }
    };
    try {
      if (sub.payment_method === 'CREDIT_CARD') {
        if (!this.chargers.card)
          throw new AppError('PROCESSOR_UNAVAILABLE', 'no card acquirer is configured');
        if (!sub.card_id) throw validation('the subscription has no saved card');
        await this.chargers.card.open(
          sub.account_id,
          {
            amount: plan.amount_cents,
            paymentMethod: 'CREDIT_CARD',
            card: { cardId: sub.card_id },
            installments: 1,
            customer,
            items,
          },
          null,
          this.log,
          { origin, reserve: (tx, saleId) => bind(tx, saleId, false) },
        );
      } else if (sub.payment_method === 'PIX') {
        await createPixSale(
          this.db,
          this.chargers.pix,
          sub.account_id,
          { amount: plan.amount_cents, paymentMethod: 'PIX', customer, items, expiresIn: 86_400 },
          null,
          {
            allowPrivateTargets: true,
            log: this.log,
            origin,
            reserve: (tx, saleId) => bind(tx, saleId, true),
          },
        );
      } else {
        if (!this.chargers.boleto?.available) {
          throw new AppError('PROCESSOR_UNAVAILABLE', 'no PSP is configured to issue boletos');
        }
        await this.chargers.boleto.issue(
          sub.account_id,
          {
            amount: plan.amount_cents,
            customer: { ...customer, address: sub.address as never },
            items,
            boleto: { dueDate: period.start < today() ? today() : period.start },
          },
          { origin, bind: (tx, saleId) => bind(tx, saleId, true) },
        );
      }
    } catch (err) {
      // the card or the customer's data can no longer make a sale: this try failed, and dunning goes on
      if (
        err instanceof AppError &&
        (err.code === 'VALIDATION_ERROR' || err.code === 'PROCESSOR_UNAVAILABLE')
      ) {
        await this.failUnsold(sub, who, charge, err.message);
        return;
      }
      if (err instanceof AppError && err.code === 'CONFLICT') return;
      this.log.warn(
        { subscription: sub.uuid, period: charge.period_index, attempt: charge.attempt, err },
        'subscription charge not made: its claim is taken over when its lease ends',
      );
    }
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
   * Applies the outcome of every try whose sale reached an end (of one subscription when `only` is given):
   * paid → the period is the current one and the next is scheduled; failed → dunning.
   */
  async settle(only: number | null = null): Promise<number> {
    let total = 0;
    for (;;) {
      const applied = await this.db.tx(async (tx) => {
        const open = await lockOpenCharges(tx, 200, only);
        const statuses = await saleStatuses(
          tx,
          open.map((c) => c.sale_id!),
        );
        const ended = open.filter((c) => {
          const sale = statuses.get(c.sale_id!);
          return sale && (PAID.has(sale.status) || FAILED.has(sale.status));
        });
        const subs = await lockSubscriptions(tx, [...new Set(ended.map((c) => c.subscription_id))]);
        const who = await subscribersOf(tx, [...subs.values()]);
        for (const charge of ended) {
          const sale = statuses.get(charge.sale_id!)!;
          const sub = subs.get(charge.subscription_id)!;
          if (PAID.has(sale.status)) await this.paid(tx, sub, who.get(sub.id)!, charge, sale.uuid);
          else await this.failed(tx, sub, who.get(sub.id)!, charge, sale.uuid);
        }
        const n = ended.length;
        return { n, full: open.length === 200 };
      });
      total += applied.n;
      if (!applied.full || applied.n === 0) return total;
    }
  }

  private async paid(
    tx: Queryable,
    sub: SubscriptionRow,
    who: Subscriber,
    charge: ChargeRow,
    saleUuid: string,
  ) {
    await setOutcome(tx, charge.id, 'paid');
    const period = periodOf(sub, who.plan, charge.period_index);
    const invoice = this.invoice(charge, period, who, saleUuid);
    if (charge.period_index >= sub.period_index && sub.status !== 'canceled') {
      sub.current_period_start = period.start;
      sub.current_period_end = period.end;
      sub.period_index = charge.period_index + 1;
      sub.attempt = 0;
      sub.first_failed_at = null;
      sub.status = 'active';
      sub.next_charge_at = chargeTimeOf(
        sub,
        who.nextPlan ?? who.plan,
        sub.period_index,
        this.settings.boletoDaysBefore,
      );
    }
    const saved = await saveSubscription(tx, sub);
    Object.assign(sub, saved);
    const view = this.subscriptions.view(saved, who);
    await notifySubscription(tx, 'invoice.paid', view, saved.account_id, saved.id, invoice);
    if (charge.period_index > 0 && saved.status === 'active') {
      await notifySubscription(tx, 'subscription.renewed', view, saved.account_id, saved.id);
    }
  }

  private async failed(
    tx: Queryable,
    sub: SubscriptionRow,
    who: Subscriber,
    charge: ChargeRow,
    saleUuid: string | null,
  ) {
    await setOutcome(tx, charge.id, 'failed');
    const period = periodOf(sub, who.plan, charge.period_index);
    const invoice = this.invoice(charge, period, who, saleUuid);
    const current = charge.period_index === sub.period_index && charge.attempt === sub.attempt;
    let becamePastDue = false;
    let canceled = false;
    if (current && sub.status !== 'canceled' && sub.status !== 'unpaid') {
      const now = new Date();
      if (charge.attempt === 1 || sub.first_failed_at === null) sub.first_failed_at = now;
      const retry = this.settings.retryDays[charge.attempt - 1];
      if (retry !== undefined) {
        becamePastDue = sub.status !== 'past_due';
        sub.status = 'past_due';
        sub.next_charge_at = new Date(sub.first_failed_at.getTime() + retry * DAY_MS);
      } else if (this.settings.cancelWhenUnpaid) {
        sub.status = 'canceled';
        sub.canceled_at = now;
        sub.next_charge_at = null;
        canceled = true;
      } else {
        sub.status = 'unpaid';
        sub.next_charge_at = null;
      }
    } else if (current && sub.status === 'unpaid') {
      sub.next_charge_at = null; // a try after a new card failed too: it waits for the next one
    }
    const saved = await saveSubscription(tx, sub);
    const [view] = await this.subscriptions.views(tx, [saved]);
    await notifySubscription(tx, 'invoice.failed', view!, saved.account_id, saved.id, invoice);
    if (becamePastDue)
      await notifySubscription(tx, 'subscription.past_due', view!, saved.account_id, saved.id);
    if (canceled) await notifySubscription(tx, 'subscription.canceled', view!, saved.account_id, saved.id);
    if (current) await mailFailure(tx, this.mail, saved, who, view!, charge.attempt);
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
