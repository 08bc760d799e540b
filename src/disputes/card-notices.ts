import { AppError } from '../platform/errors/app-error.js';
import type { Disputes } from './disputes.js';
import { CIELO_CHARGEBACK } from './source.js';

/** Cielo's notification POST: `ChangeType` 7 is its chargeback notice. */
export const CIELO_CHARGEBACK_CHANGE_TYPE = 7;

/** A chargeback as the acquirer reports it (the cards module's AcquirerChargeback). */
export interface ReportedChargeback {
  caseNumber: string;
  amountCents: number;
  reasonCode: string | null;
  reasonMessage: string | null;
}

/** The cards module's side, passed in by app.ts (disputes and cards do not import each other). */
export interface ChargebackSource {
  saleOfPayment(paymentId: string): Promise<number | null>;
  chargebacksOf(paymentId: string): Promise<ReportedChargeback[]>;
}

export type NoticeOutcome = 'opened' | 'known' | 'unknown_payment' | 'unconfirmed' | 'not_disputable';

interface Log {
  warn(obj: object, msg: string): void;
}

/**
 * Acts on the acquirer's chargeback notice for a payment. The notice is unsigned, so it only says which payment
 * to read back: the chargebacks the acquirer reports on it open a `chargeback` dispute of the sale, of the amount
 * and reason it reports, once (the case number, with the source, is the dispute's external id). A payment the
 * gateway never made, one the acquirer reports no chargeback on, or a sale no longer PAGO opens nothing.
 */
export async function openNotifiedChargeback(
  disputes: Disputes,
  source: ChargebackSource,
  paymentId: string,
  log: Log,
): Promise<NoticeOutcome> {
  const saleId = await source.saleOfPayment(paymentId);
  if (saleId === null) {
    log.warn({ paymentId }, 'chargeback notice for a payment the gateway did not make: ignored');
    return 'unknown_payment';
  }
  const reported = await source.chargebacksOf(paymentId);
  if (reported.length === 0) {
    log.warn({ paymentId, saleId }, 'chargeback notice the acquirer does not confirm: ignored');
    return 'unconfirmed';
  }
  let outcome: NoticeOutcome = 'known';
  for (const c of reported) {
    const reason = [c.reasonCode, c.reasonMessage].filter(Boolean).join(' ') || null;
    try {
      const { created } = await disputes.open({
        accountId: null,
        sale: { kind: 'numeric', id: saleId },
        kind: 'chargeback',
        amountCents: c.amountCents,
        reason,
        source: CIELO_CHARGEBACK,
        externalId: c.caseNumber,
      });
      if (created) outcome = 'opened';
    } catch (err) {
      if (!(err instanceof AppError) || (err.code !== 'CONFLICT' && err.code !== 'VALIDATION_ERROR'))
        throw err;
      log.warn(
        { paymentId, saleId, code: err.code },
        'chargeback notice of a sale that cannot be disputed now',
      );
      if (outcome !== 'opened') outcome = 'not_disputable';
    }
  }
  return outcome;
}
