import type { Queryable } from '../platform/db.js';
import { AppError } from '../platform/errors.js';

/** Failed attempts allowed in a window before the key is locked; the lock then doubles up to its maximum. */
const FREE_FAILURES = 5;
export const FAILURE_WINDOW_MINUTES = 15;
const FIRST_LOCK_SECONDS = 30;
const MAX_LOCK_SECONDS = 900;

/** What a secret is checked for: a login (by email) or a confirmation behind a panel session (by account). */
export const loginKey = (email: string) => email;
export const confirmationKey = (accountId: number) => `confirm:account:${accountId}`;

/**
 * Counts an attempt as a failure before its secret is checked (a success then clears the count), in one
 * statement under the row's lock, and refuses it (429) while the key is locked. The attempt that reaches
 * FREE_FAILURES sets the lock itself, so attempts sent at once cannot all pass the check before any failure is
 * counted: at most FREE_FAILURES secrets are checked per lock period, however many arrive.
 */
export async function countAttempt(db: Queryable, key: string, what: string): Promise<void> {
  const [counted] = await db.query<{ failures: number }>(
    `INSERT INTO login_failures (email, failures, window_started_at) VALUES ($1, 1, now())
     ON CONFLICT (email) DO UPDATE SET
       failures = CASE WHEN login_failures.window_started_at < now() - make_interval(mins => $2)
                       THEN 1 ELSE login_failures.failures + 1 END,
       window_started_at = CASE WHEN login_failures.window_started_at < now() - make_interval(mins => $2)
                                THEN now() ELSE login_failures.window_started_at END,
       locked_until = CASE WHEN login_failures.window_started_at >= now() - make_interval(mins => $2)
                                AND login_failures.failures + 1 >= $3
         THEN now() + make_interval(secs =>
                LEAST($4::int, $5::int * power(2, LEAST(login_failures.failures + 1 - $3, 10))::int))
       END
     WHERE login_failures.locked_until IS NULL OR login_failures.locked_until <= now()
     RETURNING failures`,
    [key, FAILURE_WINDOW_MINUTES, FREE_FAILURES, MAX_LOCK_SECONDS, FIRST_LOCK_SECONDS],
  );
  if (counted) return;
  const [lock] = await db.query<{ retry_after: number }>(
    `SELECT ceil(extract(epoch FROM locked_until - now()))::int AS retry_after
       FROM login_failures WHERE email = $1`,
    [key],
  );
  throw new AppError('TOO_MANY_REQUESTS', `Too many failed ${what}; try again later`, {
    'retry-after': String(Math.max(1, lock?.retry_after ?? 1)),
  });
}

export async function clearAttempts(db: Queryable, key: string): Promise<void> {
  await db.query('DELETE FROM login_failures WHERE email = $1', [key]);
}
