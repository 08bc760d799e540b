import type { Queryable } from '../../platform/db/db.js';
import { AppError, type ErrorCode, keyReused } from '../../platform/errors/app-error.js';

export const IDEMPOTENCY_TTL_HOURS = 24;

/** What a key already holds: a created withdrawal, or a business error, for one request hash. */
export interface StoredOutcome {
  requestHash: string;
  withdrawalId: number | null;
  error: { code: ErrorCode; message: string } | null;
}

/** Thrown when a concurrent request stored the key between our read and our write: run again, replay. */
export class IdempotencyRace extends Error {}

export function storedOutcome(row: {
  request_hash: string | null;
  withdrawal_id: number | null;
  response_body: string | null;
}): StoredOutcome | null {
  if (!row.request_hash) return null;
  return {
    requestHash: row.request_hash,
    withdrawalId: row.withdrawal_id,
    error: row.response_body ? (JSON.parse(row.response_body) as StoredOutcome['error']) : null,
  };
}

/**
 * A different body under a key already used → 422; a stored error is answered again as it was, marked as a
 * replay like a replayed withdrawal (a client can tell it from a fresh refusal).
 */
export function replayCheck(stored: StoredOutcome, requestHash: string): void {
  if (stored.requestHash !== requestHash) throw keyReused();
  if (stored.error) {
    throw new AppError(stored.error.code, stored.error.message, { replayed: true });
  }
}

/** How often expired keys are deleted (started with the workers). */
export const KEY_CLEANUP_EVERY_MS = 15 * 60_000;

/**
 * Deletes expired keys in chunks of 10,000 until none is left (an expired key is already ignored; this keeps
 * the table small). Returns how many went.
 */
export async function deleteExpiredKeys(db: Queryable): Promise<number> {
  let total = 0;
  for (;;) {
    const rows = await db.query(
      `DELETE FROM cashout_idempotency WHERE ctid IN (
         SELECT ctid FROM cashout_idempotency WHERE expires_at < now() LIMIT 10000)
       RETURNING 1`,
    );
    total += rows.length;
    if (rows.length < 10000) return total;
  }
}
