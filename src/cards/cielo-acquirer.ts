import { randomUUID } from 'node:crypto';
import { Pool } from 'undici';
import type { CieloSettings } from '../platform/config/cards.js';
import type { Acquirer } from './acquirer.js';
import type { CardBrand } from './brands.js';
import type { CheckedCard } from './card-checks.js';
import { AcquirerRefused, AcquirerUnavailable } from './errors.js';

/** Cielo's names of the brands (API 3.0, `Brand`). */
const CIELO_BRAND: Record<CardBrand, string> = {
  visa: 'Visa',
  mastercard: 'Master',
  amex: 'Amex',
  elo: 'Elo',
  hipercard: 'Hipercard',
};

/** Digit runs as long as a card number, cut from anything the acquirer says before it is repeated. */
const LONG_DIGITS = /\d{12,}/g;

/** CARD_ACQUIRER=cielo: Cielo's e-commerce API 3.0 (`POST /1/card` tokenizes a card). */
export class CieloAcquirer implements Acquirer {
  readonly name = 'cielo';
  private readonly pool: Pool;
  private readonly path: string;

  constructor(private readonly settings: CieloSettings) {
    const url = new URL(settings.apiUrl);
    this.pool = new Pool(url.origin, {
      connections: 8,
      headersTimeout: settings.timeoutMs,
      bodyTimeout: settings.timeoutMs,
      connectTimeout: settings.timeoutMs,
    });
    this.path = url.pathname.replace(/\/+$/, '');
  }

  async tokenize(card: CheckedCard): Promise<{ acquirerToken: string }> {
    const body = JSON.stringify({
      CustomerName: card.holderName,
      CardNumber: card.number,
      Holder: card.holderName,
      ExpirationDate: `${String(card.expMonth).padStart(2, '0')}/${card.expYear}`,
      Brand: CIELO_BRAND[card.brand],
    });
    let status: number;
    let text: string;
    try {
      const res = await this.pool.request({
        method: 'POST',
        path: `${this.path}/1/card`,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          MerchantId: this.settings.merchantId,
          MerchantKey: this.settings.merchantKey,
          RequestId: randomUUID(),
        },
        body,
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (err) {
      // undici's errors name the failure (refused, timed out), never the request's body
      throw new AcquirerUnavailable(`Cielo did not answer: ${(err as Error).message}`);
    }
    if (status >= 500) throw new AcquirerUnavailable(`Cielo answered ${status}`);
    const answer = parse(text);
    const token = (answer as { CardToken?: unknown } | null)?.CardToken;
    if ((status === 200 || status === 201) && typeof token === 'string' && token !== '') {
      return { acquirerToken: token };
    }
    throw new AcquirerRefused(`Cielo refused the card (HTTP ${status}${cieloProblem(answer)})`);
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Cielo's errors are a list of `{Code, Message}`: the first, without anything that could be a card number. */
function cieloProblem(answer: unknown): string {
  const first = Array.isArray(answer) ? (answer[0] as { Code?: unknown; Message?: unknown }) : null;
  if (!first) return '';
  const message = typeof first.Message === 'string' ? first.Message.slice(0, 200) : '';
  return `: ${String(first.Code ?? '')} ${message}`.replace(LONG_DIGITS, '…').trimEnd();
}
