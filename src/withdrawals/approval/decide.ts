import { type Actor, recordAudit } from '../../audit/index.js';
import { credentialCreatorEmail } from '../../auth/index.js';
import type { Db, Queryable } from '../../platform/db/db.js';
import { AppError, notFound } from '../../platform/errors/app-error.js';
import type { PublicId } from '../../platform/ids/public-ids.js';
import type { Queue } from '../../platform/jobs/queue.js';
import { findWithdrawal, type WithdrawalRow } from '../data.js';
import { transition } from '../state.js';

/** Unanswered this long after it was asked for, an approval expires: the withdrawal is declined. */
export const APPROVAL_HOURS = 72;
export const EXPIRY_CHECK_EVERY_MS = 60_000;

type Decision = 'approved' | 'declined' | 'expired';

/**
 * The one decision an awaiting withdrawal gets: a guarded UPDATE of its row (still awaiting, still PENDING),
 * so approve, decline, expiry and a cancel racing each other (on any process) have exactly one winner; the
 * others find nothing to decide (null). The caller acts on the decision in the same transaction.
 */
export async function recordApprovalDecision(
  tx: Queryable,
  withdrawalId: number,
  decision: Decision,
  decidedBy: string | null,
): Promise<WithdrawalRow | null> {
  const [row] = await tx.query<WithdrawalRow>(
    `UPDATE withdrawals SET approval_status = $2, approval_decided_by = $3, approval_decided_at = now(),
                        updated_at = now()
      WHERE id = $1 AND approval_status = 'awaiting' AND status = 'PENDING' RETURNING *`,
    [withdrawalId, decision, decidedBy],
  );
  return row ?? null;
}

/**
 * Declined and expired withdrawals are cancelled in the decision's transaction (money back to available,
 * withdrawal.canceled); an approved one is queued for the payout provider in it.
 */
async function decide(
  tx: Queryable,
  queue: Queue,
  withdrawalId: number,
  decision: Decision,
  decidedBy: string | null,
): Promise<WithdrawalRow | null> {
  const row = await recordApprovalDecision(tx, withdrawalId, decision, decidedBy);
  if (!row) return null;
  if (decision === 'approved') {
    await queue.send(tx, 'payouts.submit', { withdrawalIds: [row.id] });
    return row;
  }
  const cancelled = await transition(tx, row.id, 'cancel');
  return cancelled.withdrawal ?? row;
}

const notAwaiting = (w: WithdrawalRow) =>
  new AppError(
    'NOT_AWAITING_APPROVAL',
    w.approval_status === null
      ? `Withdrawal ${w.id} needs no approval`
      : `Withdrawal ${w.id} is not awaiting approval (approval ${w.approval_status}, status ${w.status})`,
  );

/** For a withdrawal an API key asked for, the e-mail of the user who created the key; else null. */
export async function keyCreatorOf(q: Queryable, requestedBy: string | null): Promise<string | null> {
  return requestedBy?.startsWith('api_key:')
    ? credentialCreatorEmail(q, requestedBy.slice('api_key:'.length))
    : null;
}

/**
 * A user who may approve decides on a withdrawal of their account: never approves one they asked for, or one
 * that an API key they created asked for, and may decline either (taking back their own request). The caller has checked the user's password or code already.
 */
export async function decideOnWithdrawal(
  db: Db,
  queue: Queue,
  accountId: number,
  id: PublicId,
  decision: 'approved' | 'declined',
  by: { email: string; actor: Actor },
): Promise<WithdrawalRow> {
  const found = await findWithdrawal(db, id, accountId);
  if (!found) throw notFound('Withdrawal not found');
  if (found.approval_status !== 'awaiting' || found.status !== 'PENDING') throw notAwaiting(found);
  // the one who asked may take the request back (decline it), never approve it
  if (decision === 'approved' && found.approval_requested_by === by.email) {
    throw new AppError('FORBIDDEN', 'A withdrawal is approved by someone other than who asked for it');
  }
  // an API key's request is its creator's: they may still decline it, never approve it
  if (decision === 'approved' && (await keyCreatorOf(db, found.approval_requested_by)) === by.email) {
    throw new AppError(
      'FORBIDDEN',
      'A withdrawal is approved by someone other than who asked for it: you created the API key that asked for this one',
    );
  }
  return db.tx(async (tx) => {
    const decided = await decide(tx, queue, found.id, decision, by.email);
    if (!decided) {
      const [now] = await tx.query<WithdrawalRow>('SELECT * FROM withdrawals WHERE id = $1', [found.id]);
      throw notAwaiting(now ?? found);
    }
    await recordAudit(tx, accountId, by.actor, {
      action: decision === 'approved' ? 'withdrawal.approved' : 'withdrawal.declined',
      target: `withdrawal:${decided.uuid}`,
    });
    return decided;
  });
}

/** Declines, as expired, every withdrawal still awaiting approval APPROVAL_HOURS after it was asked for. */
export async function expireOverdueApprovals(db: Db, queue: Queue, limit = 500): Promise<number> {
  const overdue = await db.query<{ id: number }>(
    `SELECT id FROM withdrawals
      WHERE approval_status = 'awaiting' AND created_at < now() - make_interval(hours => $1)
      ORDER BY created_at LIMIT $2`,
    [APPROVAL_HOURS, limit],
  );
  let expired = 0;
  for (const { id } of overdue) {
    const row = await db.tx((tx) => decide(tx, queue, Number(id), 'expired', null));
    if (row) expired++;
  }
  return expired;
}
