import type { Logger } from 'pino';
import type { Static } from 'typebox';
import type { Queryable } from '../../platform/db/db.js';
import { isDatabaseUnavailable } from '../../platform/db/unavailable.js';
import { AppError } from '../../platform/errors/app-error.js';
import type { PublicId } from '../../platform/ids/public-ids.js';
import type { ChargeBody } from '../charges.schemas.js';
import type { SaleOrigin } from '../data.js';
import type { PaymentMethod, SaleRow } from '../types.js';
import type { Refunder } from './processor.js';

/** A charge as `POST /api/transactions` and the panel's charge form ask for it (validated by `ChargeBody`). */
export type ChargeRequest = Static<typeof ChargeBody>;

/**
 * A sale a payment method opened, or the one an earlier request with the same Idempotency-Key opened: the row
 * as it stands (a charge as its statement stored it, a card sale as the acquirer's answer left it), answered as
 * it is.
 */
export interface OpenedSale {
  sale: SaleRow;
  replayed: boolean;
}

/**
 * A payment method as the sale lifecycle sees it: Pix (`pix/`), boleto (`boletos/`) and card (`cards/`) each
 * stand behind this one port, built in `charging.ts` and reached through `PaymentMethods`. Refusals are thrown as
 * the routes' errors (`AppError`): a processor's refusal PROCESSOR_ERROR, its absence PROCESSOR_UNAVAILABLE.
 */
export interface PaymentMethodPort {
  /** The sales it makes, by `sales.payment_method`. */
  readonly methods: readonly PaymentMethod[];
  /**
   * Opens a charge for the account and stores its sale, under the Idempotency-Key rules of every charge (a
   * repeat replays the first sale; a processor's failure stores none and gives the key back).
   */
  open(accountId: number, request: ChargeRequest, key: string | null, log: Logger): Promise<OpenedSale>;
  /**
   * The charge's own checks as `open` makes them (its fields, the account's standing and fee, its split), nothing
   * written and nothing opened: a charge a risk rule blocks is checked by them first, so that a request the
   * charge itself refuses is refused, not stored as a refused sale (decisions.md, "One admission").
   */
  check(accountId: number, request: ChargeRequest): Promise<void>;
  /**
   * Cancels the account's sale at the merchant's request: a charge removed at its processor (one found paid
   * there is credited instead), an authorization voided at the acquirer. Its sale id; a sale in a status that
   * cannot be cancelled → INVALID_STATUS.
   */
  cancel(accountId: number, id: PublicId): Promise<number>;
  /** Who refunds its sales where they were charged, keyed by the sale's `processor`. */
  readonly refunders: readonly Refunder[];
  /**
   * Why a paid sale of its cannot be refunded through the gateway at all (a boleto paid at a bank: no Pix to send
   * the money back by), or null. Asked before a refund is opened: its refusal writes nothing.
   */
  refundRefusal?(saleId: number): Promise<string | null>;
  /**
   * Its sales' statuses brought up to what their processor says (run by the workers every
   * `CHARGE_EXPIRY_EVERY_MS`): charges past their expiry read back and cancelled, authorizations whose answer was
   * lost asked about, authorizations not captured in time voided. How many sales it moved.
   */
  refreshStatuses(log: Logger): Promise<number>;
}

/** What each method's charges need when no processor is configured for it (503 PROCESSOR_UNAVAILABLE). */
const UNAVAILABLE: Partial<Record<PaymentMethod, string>> = {
  PIX: 'No payment processor is configured to open PIX charges',
  BOLETO: 'No payment processor is configured to issue boletos',
  CREDIT_CARD: 'No card acquirer is configured',
  DEBIT_CARD: 'No card acquirer is configured',
};

export function unavailable(method: PaymentMethod): AppError {
  return new AppError(
    'PROCESSOR_UNAVAILABLE',
    UNAVAILABLE[method] ?? `No payment processor is configured for ${method}`,
  );
}

/** The payment methods of this process, each sale method to its port (one factory: `charging.ts`). */
export class PaymentMethods {
  private readonly byMethod = new Map<string, PaymentMethodPort>();
  /** Every processor able to refund, by name (a sale is refunded where it was charged). */
  readonly refunders = new Map<string, Refunder>();

  constructor(readonly ports: readonly PaymentMethodPort[]) {
    for (const port of ports) {
      for (const method of port.methods) {
        if (this.byMethod.has(method)) throw new Error(`two payment methods make ${method} sales`);
        this.byMethod.set(method, port);
      }
      for (const refunder of port.refunders) this.refunders.set(refunder.name, refunder);
    }
  }

  /** Why the sale cannot be refunded through the gateway (its method's `refundRefusal`), or null. */
  async refundRefusal(sale: { id: number; payment_method: PaymentMethod }): Promise<string | null> {
    return (await this.byMethod.get(sale.payment_method)?.refundRefusal?.(sale.id)) ?? null;
  }

  /** The port that makes `method`'s sales; none → 503 PROCESSOR_UNAVAILABLE. */
  of(method: PaymentMethod): PaymentMethodPort {
    const port = this.byMethod.get(method);
    if (!port) throw unavailable(method);
    return port;
  }

  /**
   * Every method's `refreshStatuses`, one after the other; one that fails is logged and the others go on (the
   * database away ends the round).
   */
  async refreshStatuses(log: Logger): Promise<number> {
    let moved = 0;
    for (const port of this.ports) {
      try {
        moved += await port.refreshStatuses(log);
      } catch (err) {
        // the database away (a failover) is the round's to wait out, as every periodic task does
        if (isDatabaseUnavailable(err)) throw err;
        log.warn({ err, methods: port.methods }, 'sale status refresh failed; will retry');
      }
    }
    return moved;
  }
}

/**
 * A BOLETO sale's issuer as the payer pages (checkout) use it: it stores the sale and calls `bind` in the
 * transaction that does; refusals are thrown as the routes' errors.
 */
export interface BoletoSales {
  /** A boleto's own checks, nothing taken or written (`PaymentMethodPort.check`). */
  check(accountId: number, body: unknown): Promise<void>;
  open(
    accountId: number,
    body: unknown,
    bind: (tx: Queryable, saleId: number) => Promise<void>,
    /** A payer's page it was started on: the sale carries it and joins the payer's cart. */
    origin?: SaleOrigin,
  ): Promise<SaleRow>;
}
