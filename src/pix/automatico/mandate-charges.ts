import type { Logger } from 'pino';
import type { Db, Queryable } from '../../platform/db/db.js';
import { AppError } from '../../platform/errors/app-error.js';
import { derivedUuid } from '../../platform/ids/derived-uuid.js';
import type { Queue } from '../../platform/jobs/queue.js';
import { addDays } from '../../platform/time/calendar.js';
import { toSaoPaulo } from '../../platform/time/sao-paulo.js';
import type { Customer, SaleItem, SaleOrigin, SaleRow } from '../../sales/index.js';
import {
  ChargeIdTaken,
  createSale,
  dueExpiry,
  normalizeCustomer,
  type PixChargeProcessor,
  releaseOrphan,
  type SaleProcessor,
} from '../../sales/index.js';
import {
  adoptCycle,
  chargeCycle,
  lockRecurrence,
  type RecurrenceRow,
  recurrencesOfPayer,
  unclaimedFirstCycle,
} from './recurrences.js';

/** A cycle charged through a mandate, for another module (a subscription's period). */
export interface MandateCharge {
  amount: number;
  customer: Customer;
  items: Omit<SaleItem, 'id'>[];
  origin: SaleOrigin;
  /** A subscription's split, carried by the cycle's sale as a charge's. */
  split?: unknown;
  /** The day the payer's bank debits it. */
  dueDate: string;
  /** Runs in the transaction that stores the sale, after it: may refuse it. */
  bind: (tx: Queryable, saleId: number) => Promise<void>;
  /**
   * Names this try for good (a subscription's claim): a try made again after its scheduler died finds the cycle
   * that scheduler left at the processor instead of scheduling a second one.
   */
  tryKey: string;
}

/** The fewest days before its date a cycle may be scheduled at the processor. */
const MIN_LEAD_DAYS = 2;

/** Ids tried for one try when the earlier ones are taken by cycles that have ended. */
const IDS_PER_TRY = 4;

/**
 * A scheduled cycle stays payable for the standard's retry window (PERMITE_3R_7D: up to 7 days past its date);
 * then the gateway reads it back and cancels it, as any expired charge.
 */
const RETRY_WINDOW_DAYS = 7;

/**
 * Charges the cycles of the customers' Pix Automático mandates (decisions.md: a PIX subscription uses the
 * mandate the customer authorised). The sandbox plays the payer's bank and debits a sandbox mandate's cycle at
 * once (a PAGO sale); a real processor's mandate gets the cycle scheduled there (`cobr`), its sale PENDENTE
 * until the processor reports it debited, refused or expired.
 */
export class MandateCharges {
  constructor(
    private readonly db: Db,
    private readonly queue: Queue,
    private readonly processors: {
      /** SANDBOX on: the sandbox processor, which debits its own mandates. */
      debit: SaleProcessor | null;
      /** The configured PIX processor, which schedules its mandates' cycles when it can. */
      scheduler: PixChargeProcessor | null;
    },
    private readonly log: Logger,
  ) {}

  /** Whether a cycle of `amount` can be charged through this mandate here (its amount, its processor). */
  usable(rec: RecurrenceRow, amount: number): boolean {
    if (rec.amount !== null && rec.amount !== amount) return false;
    const { debit, scheduler } = this.processors;
    if (debit && rec.processor === debit.name) return true;
    return scheduler?.name === rec.processor && typeof scheduler.scheduleCycle === 'function';
  }

  /** The account's mandates of this payer's CPF or CNPJ that could charge `amount` here, newest first. */
  async ofPayer(q: Queryable, accountId: number, document: string, amount: number) {
    return (await recurrencesOfPayer(q, accountId, document)).filter((r) => this.usable(r, amount));
  }

  /**
   * One cycle of `rec`: the one the customer paid when authorising it (journeys 3 and 4), when it is still the
   * mandate's only one and of this amount, so the first period is not debited twice; else debited now (the
   * sandbox, which plays the payer's bank), or scheduled at the processor for its due date. Null: due too soon
   * to be scheduled (the caller charges the period another way).
   */
  async charge(rec: RecurrenceRow, c: MandateCharge): Promise<SaleRow | null> {
    const adopted = await this.adoptFirstCycle(rec, c);
    if (adopted) return adopted;
    const { debit, scheduler } = this.processors;
    if (debit && rec.processor === debit.name) {
      return this.db.tx(async (tx) => {
        const locked = (await lockRecurrence(tx, rec.id_rec))!;
        const sale = await chargeCycle(tx, this.queue, locked, {
          amount: c.amount,
          processor: debit.name,
          details: debit.charge({ paymentMethod: 'PIX_AUTOMATICO', amount: c.amount }),
          origin: c.origin,
          items: c.items,
          customer: normalizeCustomer(c.customer),
          split: c.split,
        });
        await c.bind(tx, sale.id);
        return sale;
      });
    }
    if (!scheduler?.scheduleCycle || scheduler.name !== rec.processor) {
      throw new AppError('PROCESSOR_UNAVAILABLE', `no processor can charge the mandate ${rec.id_rec}`);
    }
    // the arrangement wants a cycle scheduled 2 to 10 days before its date: one due sooner cannot be
    if (c.dueDate < addDays(toSaoPaulo(new Date()).slice(0, 10), MIN_LEAD_DAYS)) return null;
    return this.schedule(scheduler, rec, c);
  }

  /**
   * How a subscription's first period, of `amount` and due `dueDate`, will be charged through `rec`, as `charge`
   * will make it: already paid by the cycle the customer paid when authorising it (journeys 3 and 4), debited
   * through the mandate, or, due too soon for a cycle to be scheduled, as a charge with due date.
   */
  async firstPeriodWay(
    q: Queryable,
    rec: RecurrenceRow,
    amount: number,
    dueDate: string,
  ): Promise<'paid' | 'mandate' | 'due-date'> {
    const paid = await unclaimedFirstCycle(q, rec);
    if (paid && Number(paid.amount) === amount) return 'paid';
    const { debit } = this.processors;
    if (debit && rec.processor === debit.name) return 'mandate';
    return dueDate < addDays(toSaoPaulo(new Date()).slice(0, 10), MIN_LEAD_DAYS) ? 'due-date' : 'mandate';
  }

  private async adoptFirstCycle(rec: RecurrenceRow, c: MandateCharge): Promise<SaleRow | null> {
    if (rec.journey < 3 || rec.cycles !== 1 || !c.origin.subscriptionId) return null;
    return this.db.tx(async (tx) => {
      const locked = (await lockRecurrence(tx, rec.id_rec))!;
      const paid = await unclaimedFirstCycle(tx, locked);
      if (!paid || Number(paid.amount) !== c.amount) return null;
      await adoptCycle(tx, paid.id, c.origin.subscriptionId!);
      await c.bind(tx, paid.id);
      return paid;
    });
  }

  /**
   * As a PIX charge is opened: the cycle scheduled at the processor first, no connection held meanwhile, then
   * the PENDENTE sale stored; a cycle whose sale is not stored is cancelled there in the background.
   */
  private async schedule(processor: PixChargeProcessor, rec: RecurrenceRow, c: MandateCharge) {
    const customer = normalizeCustomer(c.customer);
    let uuid = '';
    let scheduled: { externalTransactionId: string } | null = null;
    for (let n = 0; !scheduled; n++) {
      // the same ids in the same order each time this try is made: a cycle left by a dead scheduler is found
      uuid = derivedUuid(`${c.tryKey}:${n}`);
      scheduled = await processor.scheduleCycle!({
        saleUuid: uuid,
        idRec: rec.id_rec,
        amount: c.amount,
        dueDate: c.dueDate,
        payerEmail: customer.email,
      }).catch((err: unknown) => {
        if (err instanceof ChargeIdTaken && n + 1 < IDS_PER_TRY) return null;
        throw new AppError(
          'PROCESSOR_ERROR',
          `The payment processor failed to schedule the cycle: ${err instanceof Error ? err.message.slice(0, 200) : 'no usable answer'}`,
        );
      });
    }
    try {
      return await this.db.tx(async (tx) => {
        const sale = await createSale(
          tx,
          {
            accountId: rec.account_id,
            amount: c.amount,
            paymentMethod: 'PIX_AUTOMATICO',
            customer,
            items: c.items,
            shipping: null,
            installments: null,
            processor: processor.name,
            postbackUrl: rec.postback_url,
            cartId: null,
            recurrence: { id: rec.id, idRec: rec.id_rec, contrato: rec.contrato },
            externalTransactionId: scheduled.externalTransactionId,
            pixKey: null,
            cardLastFour: null,
            cardBrand: null,
            boletoCode: null,
            origin: c.origin,
            split: c.split,
            chargeExpiry: { at: dueExpiry({ date: c.dueDate, daysAfter: RETRY_WINDOW_DAYS }) },
          },
          { notifyPending: true, uuid },
        );
        await c.bind(tx, sale.id);
        return sale;
      });
    } catch (err) {
      releaseOrphan(
        this.db,
        processor,
        {
          uuid,
          amount: c.amount,
          externalTransactionId: scheduled.externalTransactionId,
          paymentMethod: 'PIX_AUTOMATICO',
        },
        this.log,
      );
      throw err;
    }
  }
}
