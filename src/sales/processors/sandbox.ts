import { createHmac, randomBytes, randomInt } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { formatReais } from '../../platform/money.js';
import { checkTimestamped, signTimestamped } from '../../platform/timestamped-signature.js';
import type { ChargeDetails, SaleProcessor } from './processor.js';

export const SANDBOX_PROCESSOR = 'sandbox';

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

export class SandboxProcessor implements SaleProcessor {
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

  charge(input: Parameters<SaleProcessor['charge']>[0]): ChargeDetails {
    const m = input.paymentMethod;
    const card = m === 'CREDIT_CARD' || m === 'DEBIT_CARD';
    return {
      externalTransactionId: `sbx_${randomBytes(12).toString('hex')}`,
      pixKey: m === 'PIX' ? pixCopyPaste(input.amount) : null,
      cardLastFour: card ? (input.card?.lastFour ?? String(randomInt(0, 10000)).padStart(4, '0')) : null,
      cardBrand: card ? (input.card?.brand ?? 'VISA') : null,
      boletoCode: m === 'BOLETO' ? digits(47) : null,
    };
  }
}

function digits(n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += String(randomInt(0, 10));
  return out;
}

const tlv = (id: string, value: string) => `${id}${String(value.length).padStart(2, '0')}${value}`;

/** A PIX "copia e cola" code (EMV BR Code) with a valid CRC16, as a processor would generate. */
function pixCopyPaste(amount: number): string {
  const account =
    tlv('00', 'br.gov.bcb.pix') + tlv('25', `pix.sandbox.invalid/qr/${randomBytes(12).toString('hex')}`);
  const payload =
    tlv('00', '01') +
    tlv('26', account) +
    tlv('52', '0000') +
    tlv('53', '986') +
    tlv('54', formatReais(amount)) +
    tlv('58', 'BR') +
    tlv('59', 'SANDBOX') +
    tlv('60', 'SAO PAULO') +
    tlv('62', tlv('05', '***')) +
    '6304';
  return payload + crc16(payload);
}

function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}
