import type { Queryable } from '../platform/db/db.js';
import { notFound } from '../platform/errors/app-error.js';
import type { PublicId } from '../platform/ids/public-ids.js';
import { findWithdrawal, type WithdrawalRow } from './data.js';

/** GET /api/public/cashout/{id}: another account's withdrawal looks missing (404). */
export async function ownedWithdrawal(
  q: Queryable,
  accountId: number,
  id: PublicId | null,
): Promise<WithdrawalRow> {
  const row = id ? await findWithdrawal(q, id, accountId) : null;
  if (!row) throw notFound('Withdrawal not found');
  return row;
}
