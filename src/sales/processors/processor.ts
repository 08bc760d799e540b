import type { IncomingHttpHeaders } from 'node:http';
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
