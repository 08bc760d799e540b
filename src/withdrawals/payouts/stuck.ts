import type { Db } from '../../platform/db/db.js';
import { conflict, notFound } from '../../platform/errors/app-error.js';
import type { PublicId } from '../../platform/ids/public-ids.js';
import type { Queue } from '../../platform/jobs/queue.js';
import { findWithdrawal } from '../data.js';

export interface StuckWithdrawal {
  id: number;
  uuid: string;
  status: 'PENDING' | 'PROCESSING';
  /** The payout provider it was sent to; null for one no submission has claimed yet (nothing sent). */
  provider: string | null;
  /** A submission may have reached the provider (it cannot be cancelled, only retried). */
  submitting: boolean;
  /** Waiting for a second person's approval: nothing is sent before it (or its 72-hour expiry). */
  awaitingApproval: boolean;
  amount: number;
  ageMinutes: number;
}

/**
 * Withdrawals still PENDING or PROCESSING `minutes` after they last changed, oldest first; those awaiting
 * approval among them, marked so (waiting for a person, not for the provider).
 */
export async function stuckWithdrawals(db: Db, minutes: number): Promise<StuckWithdrawal[]> {
  const rows = await db.query<StuckWithdrawal>(
    `SELECT id, uuid, status,
            CASE WHEN status = 'PROCESSING' OR submitting_at IS NOT NULL THEN provider END AS provider,
            submitting_at IS NOT NULL AS submitting,
            approval_status IS NOT DISTINCT FROM 'awaiting' AS "awaitingApproval", amount,
            floor(extract(epoch FROM now() - updated_at) / 60)::int AS "ageMinutes"
       FROM withdrawals
      WHERE status IN ('PENDING', 'PROCESSING') AND updated_at < now() - make_interval(mins => $1)
      ORDER BY updated_at, id LIMIT 1000`,
    [minutes],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

/**
 * Queues a PENDING withdrawal for submission now (idempotent by reference: safe whatever its job is doing).
 * A PROCESSING one is with the provider already: its callback or read-back decides it.
 */
export async function retrySubmission(db: Db, queue: Queue, id: PublicId): Promise<StuckWithdrawal['id']> {
  const w = await findWithdrawal(db, id, null);
  if (!w) throw notFound(`no withdrawal ${id.kind === 'uuid' ? id.uuid : id.id}`);
  if (w.status !== 'PENDING') {
    throw conflict(`withdrawal ${w.id} is ${w.status}; only a PENDING withdrawal is submitted again`);
  }
  if (w.approval_status !== null && w.approval_status !== 'approved') {
    throw conflict(
      `withdrawal ${w.id} is ${w.approval_status} approval; it is sent once a second person approves it`,
    );
  }
  await db.tx((tx) => queue.send(tx, 'payouts.submit', { withdrawalIds: [w.id] }));
  return w.id;
}
