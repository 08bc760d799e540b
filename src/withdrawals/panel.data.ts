import type { Queryable } from '../platform/db/db.js';
import { type Page, periodConditions } from '../platform/paging/pagination.js';
import type { WithdrawalRow } from './data.js';

export interface WithdrawalFilters extends Page {
  status: string | null;
  /** Only those waiting for a second person's approval (the account's and its recipients'). */
  awaitingApproval?: boolean;
  /** Only this recipient's (its uuid); null: the account's own. */
  recipientUuid?: string | null;
}

function conditions(accountId: number, f: WithdrawalFilters): { sql: string; params: unknown[] } {
  const params: unknown[] = [accountId];
  const add = (value: unknown) => `$${params.push(value)}`;
  const where = ['account_id = $1'];
  if (f.status) where.push(`status = ${add(f.status)}`);
  if (f.awaitingApproval) where.push(`approval_status = 'awaiting' AND status = 'PENDING'`);
  if (f.recipientUuid) where.push(`recipient_uuid = ${add(f.recipientUuid)}::uuid`);
  else if (!f.awaitingApproval) where.push('recipient_id IS NULL');
  where.push(...periodConditions('withdrawals', '$1', f, add));
  if (f.before !== null) where.push(`id < ${add(f.before)}`);
  return { sql: where.join(' AND '), params };
}

/** One page of an account's withdrawals, newest first (limit + 1 rows: the extra one says there is more). */
export function listWithdrawals(
  db: Queryable,
  accountId: number,
  f: WithdrawalFilters,
): Promise<WithdrawalRow[]> {
  const { sql, params } = conditions(accountId, f);
  return db.query<WithdrawalRow>(
    `SELECT * FROM withdrawals WHERE ${sql} ORDER BY id DESC LIMIT ${f.limit + 1}`,
    params,
  );
}

/** Every matching withdrawal, newest first, in chunks (constant memory). */
export async function* allWithdrawals(
  db: Queryable,
  accountId: number,
  f: WithdrawalFilters,
): AsyncGenerator<WithdrawalRow> {
  let before = f.before;
  for (;;) {
    const { sql, params } = conditions(accountId, { ...f, before });
    const rows = await db.query<WithdrawalRow>(
      `SELECT * FROM withdrawals WHERE ${sql} ORDER BY id DESC LIMIT 1000`,
      params,
    );
    yield* rows;
    if (rows.length < 1000) return;
    before = rows[rows.length - 1]!.id;
  }
}
