import type { Db, Queryable } from '../platform/db/db.js';
import { AppError, notFound } from '../platform/http/errors.js';
import type { PublicId } from '../platform/http/public-ids.js';
import type { Queue } from '../platform/jobs/queue.js';
import { runBatch } from './creation/batcher.js';
import type { Created } from './creation/types.js';
import { findWithdrawal, type WithdrawalRow } from './data.js';
import { type CashoutRequest, requestHash } from './request.js';

export type { Created } from './creation/types.js';

/**
 * One cashout in its own transaction (the HTTP route shares transactions through CashoutCreator; both run
 * createBatch). Throws the refusal as an AppError.
 */
export async function createCashout(
  db: Db,
  queue: Queue,
  accountId: number,
  req: CashoutRequest,
  idempotencyKey: string | null,
): Promise<Created> {
  const [outcome] = await runBatch(db, queue, accountId, [
    { req, key: idempotencyKey, hash: requestHash(req) },
  ]);
  if (outcome instanceof AppError) throw outcome;
  return outcome!;
}

/** GET /api/public/cashout/{id}: another account's withdrawal looks missing (404). */
export async function getCashout(
  q: Queryable,
  accountId: number,
  id: PublicId | null,
): Promise<WithdrawalRow> {
  const row = id ? await findWithdrawal(q, id, accountId) : null;
  if (!row) throw notFound('Withdrawal not found');
  return row;
}
