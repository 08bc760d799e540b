import { createHmac, randomBytes, randomInt } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { barcode, brCode, digitableLine, MAX_BOLETO_CENTS } from '../../payment-standards/index.js';
import { checkTimestamped, signTimestamped } from '../../platform/crypto/timestamped-signature.js';
import type { ChargeDetails, PixCharge, PixChargeProcessor, SaleProcessor } from './processor.js';

export const SANDBOX_PROCESSOR = 'sandbox';
/** The sandbox's receiving key (a random EVP key of no real account). */
const SANDBOX_PIX_KEY = '7d9f0335-8dcc-4054-9bf9-0dbd61d36906';

/**
 * The sandbox processor's callback secret, derived from SECRETS_KEY (so every process sharing the
 * configuration agrees, and no extra setting is needed): hex HMAC-SHA256(SECRETS_KEY bytes, "processor:sandbox").
 */
export function sandboxProcessorSecret(secretsKey: Buffer): string {
  return createHmac('sha256', secretsKey).update('processor:sandbox').digest('hex');
}

/** X-Processor-Signature: sha256=<hex HMAC-SHA256(secret, "<X-Processor-Timestamp>.<raw body>")>. */
export function signProcessorCallback(secret: string, timestamp: string, rawBody: Buffer | string): string {
  return signTimestamped(secret, timestamp, rawBody);
}

export class SandboxProcessor implements SaleProcessor, PixChargeProcessor {
  readonly name = SANDBOX_PROCESSOR;
  private readonly secret: string;

  constructor(secretsKey: Buffer) {
    this.secret = sandboxProcessorSecret(secretsKey);
  }

  verifyCallback(rawBody: Buffer, headers: IncomingHttpHeaders, nowMs: number): boolean {
    const { 'x-processor-timestamp': timestamp, 'x-processor-signature': signature } = headers;
    return checkTimestamped(this.secret, timestamp, signature, rawBody, nowMs) === 'ok';
  }

  replayKey(headers: IncomingHttpHeaders): string {
    return String(headers['x-processor-signature']);
  }

  async createPixCharge(input: { amount: number }): Promise<PixCharge> {
    // the BR Code's reference label (62-05) of a static code is at most 25 characters: "sbx" + 22 hex
    const ref = randomBytes(11).toString('hex');
    return { externalTransactionId: `sbx_${ref}`, brCode: pixCopyPaste(input.amount, `sbx${ref}`) };
  }

  /** The sandbox returns the money at once. */
  async refund(): Promise<'done'> {
    return 'done';
  }

  charge(input: Parameters<SaleProcessor['charge']>[0]): ChargeDetails {
    const m = input.paymentMethod;
    const card = m === 'CREDIT_CARD' || m === 'DEBIT_CARD';
    return {
      externalTransactionId: `sbx_${randomBytes(12).toString('hex')}`,
      pixKey: m === 'PIX' ? pixCopyPaste(input.amount) : null,
      cardLastFour: card ? (input.card?.lastFour ?? String(randomInt(0, 10000)).padStart(4, '0')) : null,
      cardBrand: card ? (input.card?.brand ?? 'visa') : null, // as the card path names brands (src/cards/brands.ts)
      boletoCode: m === 'BOLETO' ? sandboxLine(input.amount) : null,
    };
  }
}

/**
 * A well-formed linha digitável (FEBRABAN check digits, due in 3 days) of no real bank account: bank 237 and a
 * random campo livre. Beyond the barcode's value field the sale keeps no boleto code.
 */
function sandboxLine(amount: number): string | null {
  if (amount > MAX_BOLETO_CENTS) return null;
  const due = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
  return digitableLine(barcode({ bank: '237', dueDate: due, amountCents: amount, campoLivre: digits(25) }));
}

function digits(n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += String(randomInt(0, 10));
  return out;
}

/** A static PIX "copia e cola" code with a valid CRC16, paid to a sandbox key. */
function pixCopyPaste(amount: number, txid?: string): string {
  return brCode({
    kind: 'static',
    pixKey: SANDBOX_PIX_KEY,
    merchantName: 'SANDBOX',
    merchantCity: 'SAO PAULO',
    amountCents: amount,
    ...(txid ? { txid } : {}),
  });
}
