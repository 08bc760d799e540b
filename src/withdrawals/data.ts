import type { Queryable } from '../platform/db/db.js';
import type { PublicId } from '../platform/ids/public-ids.js';
import { rowOrNull } from '../platform/sql/row-or-null.js';
import type { PixKeyType } from './pix-key.js';

export type WithdrawalStatus =
  | 'PENDING'
  | 'AWAITING_REVIEW'
  | 'PROCESSING'
  | 'COMPLETED'
  | 'FAILED'
  | 'CANCELLED';

export interface WithdrawalRow {
  id: number;
  uuid: string;
  account_id: number;
  amount: number;
  fee_fixed: number;
  fee_variable: number;
  net_amount: number;
  pix_key: string;
  pix_key_type: PixKeyType;
  status: WithdrawalStatus;
  provider: string;
  external_id: string | null;
  submitting_at: Date | null;
  created_at: Date;
  updated_at: Date;
  processed_at: Date | null;
  /** Set when the withdrawal needed a second person (decisions.md, Withdrawal approval). */
  approval_status: ApprovalStatus | null;
  /** A user's e-mail, or `api_key:<publicKey>`. */
  approval_requested_by: string | null;
  approval_decided_by: string | null;
  approval_decided_at: Date | null;
  /** The operator who released or cancelled it while it awaited review (payout holds). */
  review_decided_by?: string | null;
  /** Created while its account's payouts were held (its creation answer said AWAITING_REVIEW). */
  created_held?: boolean;
  /** A recipient's withdrawal (split payments): its money moves in that recipient's balance. */
  recipient_id?: number | null;
  /** The recipient's public id, carried by the notifications (`recipientId`). */
  recipient_uuid?: string | null;
}

export type ApprovalStatus = 'awaiting' | 'approved' | 'declined' | 'expired';

/** Whose a withdrawal is, by its numeric id (null for none): the console audits refusals with it. */
export async function accountOfWithdrawal(q: Queryable, id: number): Promise<number | null> {
  const row = await rowOrNull<{ account_id: string }>(q, 'SELECT account_id FROM withdrawals WHERE id = $1', [
    id,
  ]);
  return row ? Number(row.account_id) : null;
}

/** By uuid or numeric id; `accountId` scopes the lookup to one merchant (operator commands pass null). */
export async function findWithdrawal(
  q: Queryable,
  id: PublicId,
  accountId: number | null,
): Promise<WithdrawalRow | null> {
  return rowOrNull<WithdrawalRow>(
    q,
    `SELECT * FROM withdrawals
      WHERE ${id.kind === 'uuid' ? 'uuid = $1::uuid' : 'id = $1'} AND ($2::bigint IS NULL OR account_id = $2)`,
    [id.kind === 'uuid' ? id.uuid : id.id, accountId],
  );
}
