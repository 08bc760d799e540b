import type { Queryable } from '../platform/db/db.js';
import type { WithdrawalRow } from './data.js';

/** The console's withdrawal queues, across every account. */
export type OpsWithdrawalQueue = 'held' | 'pending' | 'failed' | 'stuck';
export const OPS_WITHDRAWAL_QUEUES: readonly OpsWithdrawalQueue[] = ['held', 'pending', 'failed', 'stuck'];

/** A withdrawal unchanged this long while PENDING or PROCESSING is stuck (the provider never answered). */
const STUCK_MINUTES = 30;

const WHERE: Record<OpsWithdrawalQueue, string> = {
  held: `status = 'AWAITING_REVIEW'`,
  pending: `status IN ('PENDING', 'PROCESSING')`,
  failed: `status = 'FAILED'`,
  stuck: `status IN ('PENDING', 'PROCESSING') AND updated_at < now() - make_interval(mins => ${STUCK_MINUTES})`,
};

/** One page of a queue (oldest first for held ones: the longest waiting first), `limit + 1` rows. */
export function opsWithdrawals(
  q: Queryable,
  f: { queue: OpsWithdrawalQueue; accountId: number | null; after: number | null; limit: number },
): Promise<WithdrawalRow[]> {
  return q.query<WithdrawalRow>(
    `SELECT * FROM withdrawals
      WHERE ${WHERE[f.queue]} AND ($1::bigint IS NULL OR account_id = $1) AND ($2::bigint IS NULL OR id > $2)
      ORDER BY id LIMIT $3`,
    [f.accountId, f.after, f.limit + 1],
  );
}

/** An account's withdrawals, newest first (the console's account page). */
export function accountWithdrawals(q: Queryable, accountId: number, limit: number): Promise<WithdrawalRow[]> {
  return q.query<WithdrawalRow>('SELECT * FROM withdrawals WHERE account_id = $1 ORDER BY id DESC LIMIT $2', [
    accountId,
    limit,
  ]);
}
