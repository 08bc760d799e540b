import type { PixKeyType } from '../cashouts/pix-key.js';

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

/**
 * A payout provider adapter. `submit` must be idempotent by reference (a retry after a crash must not pay
 * twice); `verifyCallback` authenticates the provider's callback over its raw bytes and parses it, or throws
 * an AppError (UNAUTHORIZED for a bad signature, VALIDATION_ERROR for a malformed body).
 */
export interface PayoutProvider {
  readonly name: string;
  submit(order: PayoutOrder): Promise<{ externalId: string }>;
  verifyCallback(rawBody: Buffer, headers: Headers): Promise<PayoutResult>;
}

/**
 * The provider certainly did not receive the order (e.g. connection refused). Any other error may have
 * reached it, so the withdrawal stays "submitting" and can no longer be cancelled.
 */
export class ProviderUnavailable extends Error {}
