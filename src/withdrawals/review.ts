import type { Db, Queryable } from '../platform/db/db.js';
import { AppError, notFound } from '../platform/errors/app-error.js';
import type { Queue } from '../platform/jobs/queue.js';
import type { WithdrawalRow } from './data.js';
import { transitionMany } from './state.js';

/*
 * Withdrawals kept for an operator (decisions.md, "The operators' console": payout holds, suspensions). A held
 * account's withdrawals wait in AWAITING_REVIEW, never sent and never lost: each is released (back to PENDING
 * and queued for the provider) or refused (CANCELLED, its money back to available, withdrawal.canceled).
 */

/** Every withdrawal of the account not yet sent waits for review (a hold or a suspension began). */
export async function holdUnsent(tx: Queryable, accountId: number): Promise<number[]> {
  const rows = await tx.query<{ id: string }>(
    `SELECT id FROM withdrawals
      WHERE account_id = $1 AND status = 'PENDING' AND submitting_at IS NULL ORDER BY id`,
    [accountId],
  );
  const moved = await transitionMany(
    tx,
    rows.map((r) => ({ id: Number(r.id), externalId: null })),
    'hold',
  );
  const held = moved.flatMap((m) => (m.changed ? [m.withdrawal.id] : []));
  // an earlier operator's release was for that time: this hold is decided anew
  if (held.length > 0) {
    await tx.query('UPDATE withdrawals SET review_decided_by = NULL WHERE id = ANY($1::bigint[])', [held]);
  }
  return held;
}

/**
 * Lets held withdrawals go: each back to PENDING and queued for the provider; one that still needs a second
 * person's approval goes back to waiting for it, and one whose approval was declined or expired meanwhile is
 * cancelled as such an approval cancels it.
 */
export async function releaseHeld(
  tx: Queryable,
  queue: Queue,
  ids: number[],
  decidedBy: string,
): Promise<WithdrawalRow[]> {
  if (ids.length === 0) return [];
  const moved = (
    await transitionMany(
      tx,
      ids.map((id) => ({ id, externalId: null })),
      'release',
    )
  ).flatMap((m) => (m.changed ? [m.withdrawal] : []));
  if (moved.length === 0) return [];
  await tx.query('UPDATE withdrawals SET review_decided_by = $2 WHERE id = ANY($1::bigint[])', [
    moved.map((w) => w.id),
    decidedBy,
  ]);
  const send = moved.filter((w) => w.approval_status === null || w.approval_status === 'approved');
  if (send.length > 0) await queue.send(tx, 'payouts.submit', { withdrawalIds: send.map((w) => w.id) });
  const undecided = moved.filter((w) => w.approval_status === 'declined' || w.approval_status === 'expired');
  if (undecided.length > 0) {
    await transitionMany(
      tx,
      undecided.map((w) => ({ id: w.id, externalId: null })),
      'cancel',
    );
  }
  return moved;
}

/** Every held withdrawal of the account is let go (the hold or the suspension ended). */
export async function releaseAccount(tx: Queryable, queue: Queue, accountId: number, decidedBy: string) {
  const rows = await tx.query<{ id: string }>(
    `SELECT id FROM withdrawals WHERE account_id = $1 AND status = 'AWAITING_REVIEW' ORDER BY id`,
    [accountId],
  );
  return releaseHeld(
    tx,
    queue,
    rows.map((r) => Number(r.id)),
    decidedBy,
  );
}

export type ReviewDecision = 'release' | 'cancel';

/**
 * An operator's decision on one held withdrawal (by numeric id): released, or cancelled with its money back
 * and the merchant notified. One not awaiting review → 409 INVALID_STATUS; unknown → 404. A release while
 * the account is still held or suspended is allowed: the operator decides for that withdrawal.
 */
export async function decideHeld(
  db: Db,
  queue: Queue,
  id: number,
  decision: ReviewDecision,
  decidedBy: string,
  inTx: (tx: Queryable, before: WithdrawalRow, after: WithdrawalRow) => Promise<void>,
): Promise<WithdrawalRow> {
  return db.tx(async (tx) => {
    const [before] = await tx.query<WithdrawalRow>('SELECT * FROM withdrawals WHERE id = $1 FOR UPDATE', [
      id,
    ]);
    if (!before) throw notFound('Withdrawal not found');
    if (before.status !== 'AWAITING_REVIEW') {
      throw new AppError('INVALID_STATUS', `Withdrawal ${id} is ${before.status}, not AWAITING_REVIEW`);
    }
    let after: WithdrawalRow;
    if (decision === 'release') {
      // released while its account stays held: review_decided_by lets the submission claim it (payouts.ts)
      after = (await releaseHeld(tx, queue, [id], decidedBy))[0]!;
    } else {
      const [moved] = await transitionMany(tx, [{ id, externalId: null }], 'refuse');
      after = moved!.withdrawal!;
      await tx.query('UPDATE withdrawals SET review_decided_by = $2 WHERE id = $1', [id, decidedBy]);
    }
    await inTx(tx, before, after);
    return after;
  });
}
