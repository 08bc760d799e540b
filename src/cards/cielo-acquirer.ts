import { randomUUID } from 'node:crypto';
import { Pool } from 'undici';
import type { CieloSettings } from '../platform/config/cards.js';
import type { Acquirer, AcquirerPayment, AuthorizeRequest } from './acquirer.js';
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

/** Cielo's `Payment.Status`: what each says of the payment (12 Pending and 0 NotFinished: not decided yet). */
const STATE_OF_STATUS: Record<number, AcquirerPayment['state']> = {
  0: 'pending',
  1: 'authorized',
  2: 'captured',
  3: 'denied',
  10: 'voided',
  11: 'voided',
  12: 'pending',
  13: 'denied',
};

/** Digit runs as long as a card number, cut from anything the acquirer says before it is repeated. */
const LONG_DIGITS = /\d{12,}/g;

interface Answer {
  status: number;
  body: unknown;
}

/**
 * CARD_ACQUIRER=cielo: Cielo's e-commerce API 3.0. Transactions (`POST /1/card`, `POST /1/sales/`,
 * `PUT /1/sales/{PaymentId}/capture|void`) at CIELO_API_URL, queries (`GET /1/sales?merchantOrderId=`,
 * `GET /1/sales/{PaymentId}`) at CIELO_QUERY_URL.
 */
export class CieloAcquirer implements Acquirer {
  readonly name = 'cielo';
  private readonly api: { pool: Pool; path: string };
  private readonly query: { pool: Pool; path: string };

  constructor(private readonly settings: CieloSettings) {
    const open = (base: string) => {
      const url = new URL(base);
      return {
        pool: new Pool(url.origin, {
          connections: 8,
          headersTimeout: settings.timeoutMs,
          bodyTimeout: settings.timeoutMs,
          connectTimeout: settings.timeoutMs,
          ...(settings.ca ? { connect: { ca: settings.ca } } : {}),
        }),
        path: url.pathname.replace(/\/+$/, ''),
      };
    };
    this.api = open(settings.apiUrl);
    this.query = settings.queryUrl === settings.apiUrl ? this.api : open(settings.queryUrl);
  }

  async tokenize(card: CheckedCard): Promise<{ acquirerToken: string }> {
    const { status, body } = await this.send(this.api, 'POST', '/1/card', {
      CustomerName: card.holderName,
      CardNumber: card.number,
      Holder: card.holderName,
      ExpirationDate: `${String(card.expMonth).padStart(2, '0')}/${card.expYear}`,
      Brand: CIELO_BRAND[card.brand],
    });
    const token = (body as { CardToken?: unknown } | null)?.CardToken;
    if ((status === 200 || status === 201) && typeof token === 'string' && token !== '') {
      return { acquirerToken: token };
    }
    throw new AcquirerRefused(`Cielo refused the card (HTTP ${status}${cieloProblem(body)})`);
  }

  async authorize(r: AuthorizeRequest): Promise<AcquirerPayment> {
    const { status, body } = await this.send(this.api, 'POST', '/1/sales/', {
      MerchantOrderId: r.merchantOrderId,
      Customer: { Name: r.customerName },
      Payment: {
        Type: r.type,
        Amount: r.amountCents,
        Installments: r.installments,
        Capture: r.capture,
        [r.type]: { CardToken: r.acquirerToken, Brand: CIELO_BRAND[r.brand] },
      },
    });
    const payment = paymentOf(body);
    if ((status === 200 || status === 201) && payment) return payment;
    throw new AcquirerRefused(`Cielo refused the sale (HTTP ${status}${cieloProblem(body)})`);
  }

  capture(paymentId: string, amountCents: number): Promise<AcquirerPayment> {
    return this.update(paymentId, 'capture', amountCents);
  }

  cancel(paymentId: string, amountCents: number): Promise<AcquirerPayment> {
    return this.update(paymentId, 'void', amountCents);
  }

  async findByOrderId(merchantOrderId: string): Promise<AcquirerPayment | null> {
    const found = await this.send(
      this.query,
      'GET',
      `/1/sales?merchantOrderId=${encodeURIComponent(merchantOrderId)}`,
    );
    if (found.status === 404) return null;
    const payments = (found.body as { Payments?: { PaymentId?: unknown }[] } | null)?.Payments;
    if (found.status !== 200 || !Array.isArray(payments)) {
      throw new AcquirerRefused(`Cielo refused the query (HTTP ${found.status}${cieloProblem(found.body)})`);
    }
    const id = payments.at(-1)?.PaymentId;
    if (typeof id !== 'string') return null;
    return this.paymentById(id);
  }

  private async paymentById(paymentId: string): Promise<AcquirerPayment> {
    const { status, body } = await this.send(this.query, 'GET', `/1/sales/${encodeURIComponent(paymentId)}`);
    const payment = paymentOf(body);
    if (status === 200 && payment) return payment;
    throw new AcquirerRefused(`Cielo refused the query (HTTP ${status}${cieloProblem(body)})`);
  }

  /** Capture and void answer the new status only: the payment is read back whole. */
  private async update(paymentId: string, what: 'capture' | 'void', amountCents: number) {
    const { status, body } = await this.send(
      this.api,
      'PUT',
      `/1/sales/${encodeURIComponent(paymentId)}/${what}?amount=${amountCents}`,
    );
    const code = (body as { Status?: unknown } | null)?.Status;
    if (status !== 200 || typeof code !== 'number') {
      throw new AcquirerRefused(`Cielo refused the ${what} (HTTP ${status}${cieloProblem(body)})`);
    }
    return this.paymentById(paymentId);
  }

  private async send(
    to: { pool: Pool; path: string },
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    payload?: unknown,
  ): Promise<Answer> {
    let status: number;
    let text: string;
    try {
      const res = await to.pool.request({
        method,
        path: `${to.path}${path}`,
        headers: {
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          accept: 'application/json',
          MerchantId: this.settings.merchantId,
          MerchantKey: this.settings.merchantKey,
          RequestId: randomUUID(),
        },
        ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (err) {
      // undici's errors name the failure (refused, timed out), never the request's body
      throw new AcquirerUnavailable(`Cielo did not answer: ${(err as Error).message}`);
    }
    if (status >= 500) throw new AcquirerUnavailable(`Cielo answered ${status}`);
    return { status, body: parse(text) };
  }

  async close(): Promise<void> {
    await this.api.pool.close();
    if (this.query !== this.api) await this.query.pool.close();
  }
}

/** A sale's `Payment` as this adapter reads it, or null when the answer is not one. */
function paymentOf(body: unknown): AcquirerPayment | null {
  const p = (body as { Payment?: Record<string, unknown> } | null)?.Payment;
  if (!p || typeof p.PaymentId !== 'string' || typeof p.Status !== 'number') return null;
  const state = STATE_OF_STATUS[p.Status];
  if (!state) return null;
  const text = (v: unknown) =>
    typeof v === 'string' || typeof v === 'number' ? String(v).slice(0, 200).replace(LONG_DIGITS, '…') : null;
  return {
    paymentId: p.PaymentId,
    state,
    amountCents: typeof p.Amount === 'number' ? p.Amount : 0,
    capturedCents: typeof p.CapturedAmount === 'number' ? p.CapturedAmount : 0,
    voidedCents: typeof p.VoidedAmount === 'number' ? p.VoidedAmount : 0,
    returnCode: text(p.ReturnCode),
    returnMessage: text(p.ReturnMessage),
  };
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
