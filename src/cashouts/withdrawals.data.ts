import type { Queryable } from '../platform/db.js';
import type { PublicId } from '../platform/ids.js';
import type { PixKeyType } from './pix-key.js';

export type WithdrawalStatus = 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';

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
}

export interface NewWithdrawal {
  id: number;
  uuid: string;
  accountId: number;
  amount: number;
  feeFixed: number;
  feeVariable: number;
  netAmount: number;
  pixKey: string;
  pixKeyType: PixKeyType;
}

export async function insertWithdrawal(q: Queryable, w: NewWithdrawal): Promise<WithdrawalRow> {
  const [row] = await q.query<WithdrawalRow>(
    `INSERT INTO withdrawals
       (id, uuid, account_id, amount, fee_fixed, fee_variable, net_amount, pix_key, pix_key_type, status)
     VALUES ($9, $1, $2, $3, $4, $5, $6, $7, $8, 'PENDING') RETURNING *`,
    [w.uuid, w.accountId, w.amount, w.feeFixed, w.feeVariable, w.netAmount, w.pixKey, w.pixKeyType, w.id],
  );
  return row!;
}

/** By uuid or numeric id; `accountId` scopes the lookup to one merchant (operator commands pass null). */
export async function findWithdrawal(
  q: Queryable,
  id: PublicId,
  accountId: number | null,
): Promise<WithdrawalRow | null> {
  const [row] = await q.query<WithdrawalRow>(
    `SELECT * FROM withdrawals
      WHERE ${id.kind === 'uuid' ? 'uuid = $1::uuid' : 'id = $1'} AND ($2::bigint IS NULL OR account_id = $2)`,
    [id.kind === 'uuid' ? id.uuid : id.id, accountId],
  );
  return row ?? null;
}

export async function findWithdrawalById(q: Queryable, id: number): Promise<WithdrawalRow | null> {
  const [row] = await q.query<WithdrawalRow>('SELECT * FROM withdrawals WHERE id = $1', [id]);
  return row ?? null;
}
