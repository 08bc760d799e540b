import type { CardBrand } from './brands.js';
import type { CheckedCard } from './card-checks.js';

export type PaymentType = 'CreditCard' | 'DebitCard';

/** One authorization: `merchantOrderId` is the sale's uuid, the key the payment is found again by. */
export interface AuthorizeRequest {
  merchantOrderId: string;
  amountCents: number;
  installments: number;
  type: PaymentType;
  acquirerToken: string;
  brand: CardBrand;
  capture: boolean;
  customerName: string;
}

/**
 * A payment as the acquirer reports it. `pending`: the acquirer has it but has not decided (asked again
 * later); `denied` carries the acquirer's return code and message.
 */
export interface AcquirerPayment {
  paymentId: string;
  state: 'authorized' | 'captured' | 'denied' | 'voided' | 'pending';
  amountCents: number;
  capturedCents: number;
  /** What voids (refunds) have returned of the payment so far. */
  voidedCents: number;
  returnCode: string | null;
  returnMessage: string | null;
}

/**
 * Who holds the cards and charges them: the gateway keeps only the token it hands back. `authorize`,
 * `capture` and `cancel` throw AcquirerUnavailable when the outcome is unknown (no answer, 5xx): the caller
 * asks `findByOrderId` before anything is sent again. AcquirerRefused: the acquirer answered and did nothing.
 */
export interface Acquirer {
  readonly name: string;
  tokenize(card: CheckedCard): Promise<{ acquirerToken: string }>;
  authorize(request: AuthorizeRequest): Promise<AcquirerPayment>;
  capture(paymentId: string, amountCents: number): Promise<AcquirerPayment>;
  /** Voids (the same day) or refunds `amountCents` of a payment. */
  cancel(paymentId: string, amountCents: number): Promise<AcquirerPayment>;
  /** The payment made for this order id, or null when the acquirer has none. */
  findByOrderId(merchantOrderId: string): Promise<AcquirerPayment | null>;
  close(): Promise<void>;
}
