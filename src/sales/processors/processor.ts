import type { IncomingHttpHeaders } from 'node:http';
import { PspError } from '../../payment-standards/index.js';
import type { PaymentMethod } from '../types.js';

/** What a processor tells us about a new charge: its own id and the payment details it generated. */
export interface ChargeDetails {
  externalTransactionId: string;
  pixKey: string | null;
  cardLastFour: string | null;
  cardBrand: string | null;
  boletoCode: string | null;
}

/**
 * A payment processor adapter. Its callbacks reach POST /api/providers/{name}/sales/callback and are
 * believed only when `verifyCallback` accepts the raw bytes and headers.
 */
export interface SaleProcessor {
  readonly name: string;
  verifyCallback(rawBody: Buffer, headers: IncomingHttpHeaders, nowMs: number): boolean;
  /** What identifies one verified callback (e.g. its signature): a second use is a replay. */
  replayKey(headers: IncomingHttpHeaders): string;
  /** Generates the processor-side details of a charge (the sandbox plays the processor here). */
  charge(input: {
    paymentMethod: PaymentMethod;
    amount: number;
    card?: { brand: string; lastFour: string };
  }): ChargeDetails;
}

export type ProcessorRegistry = ReadonlyMap<string, SaleProcessor>;

/** A PIX charge a processor opened: its own reference and the copy-and-paste BR Code the buyer pays. */
export interface PixCharge {
  externalTransactionId: string;
  brCode: string;
}

/**
 * A refund the processor was never asked for (nothing to refund there, no attempt could be made): the money
 * held for it goes back to the merchant. Any other failure of `refund` may hide a refund under way: its money
 * stays held until the processor reports the refund's end.
 */
export class RefundNotMade extends PspError {}

/** What refunds a sale where it was charged (a PIX processor, a card acquirer): keyed by the sale's `processor`. */
export interface Refunder {
  readonly name: string;
  /** Returns `refund.amount` of the sale to the payer; a repeat for the same refund is never a second one. */
  refund(
    sale: { id: number; uuid: string; amount: number; externalTransactionId: string },
    refund: { id: number; amount: number },
  ): Promise<'done' | 'pending'>;
  /**
   * Asked about a refund left in progress with no answer (a crash, a lost answer): 'done' it was made,
   * 'not_made' certainly not, 'unknown' not known yet (asked again later). Without it, a refund left for ten
   * minutes with nothing under way ends as not made.
   */
  resolve?(
    sale: { uuid: string },
    refund: { id: number; amount: number },
  ): Promise<'done' | 'not_made' | 'unknown'>;
}

/**
 * A processor that opens PIX charges for POST /api/transactions and refunds them. Failures throw (the route
 * answers 502 PROCESSOR_ERROR and keeps no sale); `refund` answers 'done' when the money is already back, and
 * throws RefundNotMade when it is certainly not going back.
 */
export interface PixChargeProcessor extends Refunder {
  /** An immediate charge (API Pix `cob`) payable for `expiresIn` seconds, or one with a due date (`cobv`). */
  createPixCharge(input: {
    saleUuid: string;
    amount: number;
    expiresIn: number;
    due?: PixDue;
  }): Promise<PixCharge>;
  /**
   * Asked before an expired PENDENTE charge is cancelled (processors that can be paid after our expiry): it
   * credits the charge if the processor says it was paid, or makes it unpayable there. `true`: the sale may be
   * cancelled (if still PENDENTE); a throw: the processor could not be asked, the sale waits for the next round.
   * Called outside any transaction. Processors without it (the sandbox) are cancelled at once.
   */
  releaseExpired?(charge: ExpiredCharge): Promise<boolean>;
  /**
   * Pix Automático: schedules one cycle of an authorised mandate (API Pix `cobr`), debited by the payer's bank
   * on `dueDate`; its outcome comes back through the processor's own callbacks. Absent: this processor cannot
   * (or is not set up to) schedule cycles.
   */
  scheduleCycle?(cycle: ScheduledCycle): Promise<{ externalTransactionId: string }>;
}

/**
 * The id asked for is taken at the processor by a charge that has ended (one the gateway itself cancelled, its
 * sale never stored): a retry must ask under another id.
 */
export class ChargeIdTaken extends PspError {}

export interface ScheduledCycle {
  saleUuid: string;
  idRec: string;
  amount: number;
  dueDate: string;
  payerEmail: string;
}

/** A charge with due date: payable until `daysAfter` days past `date` (São Paulo), addressed to `payer`. */
export interface PixDue {
  date: string;
  daysAfter: number;
  payer: { name: string; document: string; email: string };
}

export interface ExpiredCharge {
  uuid: string;
  amount: number;
  externalTransactionId: string;
  /** BOLETO: the charge at the PSP is a charge with due date (cobv) rather than a cob. */
  paymentMethod?: string;
}
