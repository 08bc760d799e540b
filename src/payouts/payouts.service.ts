import { transition } from '../cashouts/state.js';
import type { WithdrawalRow } from '../cashouts/withdrawals.data.js';
import type { Db } from '../platform/db.js';
import { notFound } from '../platform/errors.js';
import type { Queue } from '../platform/queue.js';
import { type Headers, type PayoutProvider, ProviderUnavailable } from './provider.js';

/**
 * Submits one PENDING withdrawal to the provider and moves it to PROCESSING. Safe to run again at any
 * point (job retries, a worker killed mid-way): the provider dedupes by reference (the withdrawal uuid),
 * and the move to PROCESSING is guarded. Errors propagate so the job is retried.
 */
export async function submitPayout(
  db: Db,
  queue: Queue,
  provider: PayoutProvider,
  withdrawalId: number,
): Promise<void> {
  // Claim: from here the order may reach the provider, so a cancel is refused (state.ts checks this).
  const [claimed] = await db.query<WithdrawalRow & { first_claim: boolean }>(
    `WITH before AS (SELECT id, submitting_at FROM withdrawals WHERE id = $1 AND status = 'PENDING' FOR UPDATE)
     UPDATE withdrawals w SET submitting_at = COALESCE(w.submitting_at, now())
       FROM before WHERE w.id = before.id
     RETURNING w.*, before.submitting_at IS NULL AS first_claim`,
    [withdrawalId],
  );
  if (!claimed) return; // already submitted, or cancelled
  let externalId: string;
  try {
    ({ externalId } = await provider.submit({
      reference: claimed.uuid,
      amountCents: claimed.net_amount,
      pixKey: claimed.pix_key,
      pixKeyType: claimed.pix_key_type,
    }));
  } catch (err) {
    // Certainly not received, and no earlier attempt may have reached it: cancellable again.
    if (err instanceof ProviderUnavailable && claimed.first_claim) {
      await db.query(`UPDATE withdrawals SET submitting_at = NULL WHERE id = $1 AND status = 'PENDING'`, [
        withdrawalId,
      ]);
    }
    throw err;
  }
  await db.tx((tx) => transition(tx, queue, withdrawalId, 'submit', externalId));
}

export interface CallbackOutcome {
  withdrawal: WithdrawalRow;
  changed: boolean;
}

/**
 * The provider's callback, verified over its raw bytes, drives PROCESSING → COMPLETED or FAILED. A repeated
 * or late callback (the withdrawal is no longer PROCESSING) changes nothing.
 */
export async function handlePayoutCallback(
  db: Db,
  queue: Queue,
  provider: PayoutProvider,
  rawBody: string,
  headers: Headers,
): Promise<CallbackOutcome> {
  const report = await provider.verifyCallback(rawBody, headers);
  const [row] = await db.query<{ id: number }>(
    'SELECT id FROM withdrawals WHERE uuid = $1::uuid AND provider = $2',
    [report.reference, provider.name],
  );
  if (!row) throw notFound(`No withdrawal with reference ${report.reference}`);
  const result = await db.tx((tx) =>
    transition(tx, queue, row.id, report.result === 'COMPLETED' ? 'complete' : 'reject', report.externalId),
  );
  return { withdrawal: result.withdrawal!, changed: result.changed };
}
