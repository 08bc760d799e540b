import type { PixKeyType } from '../pix-key.js';

/** One payout as sent to a provider. `reference` is the withdrawal uuid: the provider's idempotency key. */
export interface PayoutOrder {
  reference: string;
  amountCents: number;
  pixKey: string;
  pixKeyType: PixKeyType;
}

/** A provider's verified report on a payout. */
export interface PayoutResult {
  reference: string;
  externalId: string;
  result: 'COMPLETED' | 'REJECTED';
}

export type Headers = Record<string, string | string[] | undefined>;

/** A provider's answer to one order. */
export interface Submitted {
  externalId: string;
  rejected?: string;
}

/**
 * A payout provider adapter. `submit` (and `submitBatch`) must be idempotent by reference (a retry after a
 * crash must not pay twice); `verifyCallback` authenticates the provider's callback over its raw bytes and
 * parses it, or throws an AppError (UNAUTHORIZED for a bad signature, VALIDATION_ERROR for a malformed body).
 */
export interface PayoutProvider {
  readonly name: string;
  /**
   * Sends the order. `rejected` means the provider refused it for good (nothing will be paid); an answer
   * that may or may not have reached the provider (timeout, 5xx) is a submission whose outcome `check` finds.
   */
  submit(order: PayoutOrder): Promise<Submitted>;
  /**
   * For providers whose API takes several orders in one request: the answers in the orders' order. It fails
   * as `submit` does, for every order of the request at once.
   */
  submitBatch?(orders: PayoutOrder[]): Promise<Submitted[]>;
  verifyCallback(rawBody: Buffer, headers: Headers): Promise<PayoutResult>;
  /**
   * What became of a submitted order, read back from the provider: continually for a provider without
   * callbacks, and for one with callbacks when its callback is long overdue (a lost callback).
   */
  check?(order: PayoutOrder): Promise<PayoutCheck>;
  /** The provider reports results by signed callback (read back only when one is overdue). */
  readonly callbacks?: boolean;
}

/** A submitted order as the provider reports it; MISSING: it never received it (safe to send again). */
export type PayoutCheck =
  | { state: 'PROCESSING' }
  | { state: 'MISSING' }
  | { state: 'COMPLETED' | 'REJECTED'; externalId: string; reason?: string };

/**
 * The provider certainly did not receive the order (e.g. connection refused). Any other error may have
 * reached it, so the withdrawal stays "submitting" and can no longer be cancelled.
 */
export class ProviderUnavailable extends Error {}
