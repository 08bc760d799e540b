import { pauseCardPayments } from '../accounts/index.js';
import type { Queryable } from '../platform/db/db.js';
import { AppError } from '../platform/errors/app-error.js';
import { openReview } from '../reviews/index.js';

let refusalRatio = 0.5;
/** RISK_REFUSAL_RATIO, set once at start-up (0: off). */
export function setRefusalRatio(ratio: number): void {
  refusalRatio = ratio;
}

/** The fewest card attempts in an hour on which a refusal ratio says anything. */
export const REFUSAL_RATIO_MIN_ATTEMPTS = 20;

/**
 * After a refusal, in its transaction: past `ratio` of the account's card attempts of the last hour (at least
 * REFUSAL_RATIO_MIN_ATTEMPTS of them), its card payments are paused and a risk review opens in the console's
 * queue (once: a paused account opens no second one). `ratio` 0: off.
 */
export async function watchRefusals(tx: Queryable, accountId: number, ratio = refusalRatio): Promise<void> {
  if (ratio <= 0) return;
  const [row] = await tx.query<{ refused: number; total: number }>(
    `SELECT count(*) FILTER (WHERE state = 'denied')::int AS refused, count(*)::int AS total
       FROM card_payments WHERE account_id = $1 AND created_at > now() - interval '1 hour'`,
    [accountId],
  );
  if (!row || row.total < REFUSAL_RATIO_MIN_ATTEMPTS || row.refused / row.total <= ratio) return;
  if (await pauseCardPayments(tx, accountId)) {
    await openReview(tx, {
      kind: 'risk',
      accountId,
      reason: `Cartões recusados: ${row.refused} de ${row.total} tentativas na última hora; pagamentos com cartão pausados`,
    });
  }
}

/** Refuses a card payment of an account whose card payments are paused (`paused` as read with its rates). */
export function refuseWhenPaused(paused: boolean): void {
  if (paused) {
    throw new AppError(
      'CARD_PAYMENTS_PAUSED',
      'Card payments of this account are paused for review: too many were refused within an hour; the gateway’s risk team resumes them',
    );
  }
}
