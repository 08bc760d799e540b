import { randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import type { CieloSettings } from '../platform/config/cards.js';
import type { Db } from '../platform/db/db.js';
import { AcquirerRefused, AcquirerUnavailable } from './errors.js';

/** A chargeback as the acquirer reports it on the payment (Cielo's `Payment.Chargebacks[n]`). */
export interface AcquirerChargeback {
  /** The acquirer's case number: what makes a chargeback read twice the same one. */
  caseNumber: string;
  amountCents: number;
  reasonCode: string | null;
  reasonMessage: string | null;
}

/**
 * What the disputes module needs of the cards module to act on a chargeback notice: the sale a payment of the
 * acquirer's belongs to, and the chargebacks the acquirer itself reports on that payment.
 */
export interface CardChargebackSource {
  saleOfPayment(paymentId: string): Promise<number | null>;
  /** The payment's chargebacks read back from the acquirer; [] when it has none, or no such payment. */
  chargebacksOf(paymentId: string): Promise<AcquirerChargeback[]>;
  close(): Promise<void>;
}

const LONG_DIGITS = /\d{12,}/g;
const text = (v: unknown, max: number) =>
  typeof v === 'string' || typeof v === 'number'
    ? String(v).slice(0, max).replace(LONG_DIGITS, '…').trim() || null
    : null;

/**
 * CARD_ACQUIRER=cielo: a payment's chargebacks are read with the query API (`GET {CIELO_QUERY_URL}/1/sales/
 * {PaymentId}`, `Payment.Chargebacks: [{Amount, CaseNumber, Date, ReasonCode, ReasonMessage, Status}]`).
 */
export function cieloChargebackSource(db: Db, settings: CieloSettings): CardChargebackSource {
  const dispatcher = new Agent({
    connections: 4,
    connectTimeout: settings.timeoutMs,
    ...(settings.ca ? { connect: { ca: settings.ca } } : {}),
  });
  return {
    close: () => dispatcher.close(),
    async saleOfPayment(paymentId) {
      const [row] = await db.query<{ sale_id: string }>(
        "SELECT sale_id FROM card_payments WHERE payment_id = $1 AND acquirer = 'cielo'",
        [paymentId],
      );
      return row ? Number(row.sale_id) : null;
    },
    async chargebacksOf(paymentId) {
      let status: number;
      let body: unknown;
      try {
        const res = await request(`${settings.queryUrl}/1/sales/${encodeURIComponent(paymentId)}`, {
          method: 'GET',
          headers: {
            accept: 'application/json',
            MerchantId: settings.merchantId,
            MerchantKey: settings.merchantKey,
            RequestId: randomUUID(),
          },
          headersTimeout: settings.timeoutMs,
          bodyTimeout: settings.timeoutMs,
          dispatcher,
        });
        status = res.statusCode;
        const raw = await res.body.text();
        try {
          body = JSON.parse(raw);
        } catch {
          body = null;
        }
      } catch (err) {
        throw new AcquirerUnavailable(`Cielo did not answer: ${(err as Error).message}`);
      }
      if (status >= 500) throw new AcquirerUnavailable(`Cielo answered ${status}`);
      if (status === 404) return [];
      const payment = (body as { Payment?: Record<string, unknown> } | null)?.Payment;
      if (status !== 200 || !payment) throw new AcquirerRefused(`Cielo refused the query (HTTP ${status})`);
      if (payment.PaymentId !== paymentId || !Array.isArray(payment.Chargebacks)) return [];
      const found: AcquirerChargeback[] = [];
      for (const c of payment.Chargebacks as Record<string, unknown>[]) {
        const caseNumber = text(c?.CaseNumber, 64);
        if (!caseNumber || !Number.isSafeInteger(c.Amount) || (c.Amount as number) < 1) continue;
        found.push({
          caseNumber,
          amountCents: c.Amount as number,
          reasonCode: text(c.ReasonCode, 16),
          reasonMessage: text(c.ReasonMessage, 200),
        });
      }
      return found;
    },
  };
}
