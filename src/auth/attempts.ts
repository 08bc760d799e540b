import type { Queryable } from '../platform/db/db.js';
import { AppError } from '../platform/errors/app-error.js';

/** Failed attempts allowed in a window before the key is locked; the lock then doubles up to its maximum. */
const FREE_FAILURES = 5;
export const FAILURE_WINDOW_MINUTES = 15;
const FIRST_LOCK_SECONDS = 30;
const MAX_LOCK_SECONDS = 900;

/** What a secret is checked for: a login (by email) or a confirmation behind a panel session (by account). */
export const loginKey = (email: string) => email;
/**
 * Failed confirmations behind a panel session are counted per account (docs/security.md): several stolen
 * sessions of one account share one allowance (a right confirmation clears it, as a right password does).
 */
export const confirmationKey = (accountId: number) => `confirm:account:${accountId}`;

export interface Attempt {
  /**
   * This attempt's number among its key's attempts in the current failure window (1: the first), as counted
   * in the database: a password check waits by it (passwords.ts), so a key under a guessing flood waits behind
   * every key that has made fewer attempts.
   */
  readonly turn: number;
  /** This attempt proved nothing wrong (the right password, the code still to come): it is not a failure. */
  uncount(): Promise<void>;
}

/**
 * Runs one check of a secret under `key`'s failure count: the attempt is counted as a failure before `check`
 * runs (a success then clears the count with clearAttempts, in the caller's own transaction) and refused with
 * 429 while the key is locked. The attempt that reaches FREE_FAILURES sets the lock itself, so attempts sent
 * at once cannot all pass before any failure is counted: at most FREE_FAILURES secrets (plus one per other
 * process) are checked per lock period, however many arrive. A process checks one attempt per key at a time,
 * so right secrets sent at once (a merchant's concurrent withdrawals) do not count each other as failures.
 */
export function withAttempt<T>(
  db: Queryable,
  key: string,
  what: string,
  check: (attempt: Attempt) => Promise<T>,
): Promise<T> {
  return oneAtATime(key, async () => {
    const { previousLock, turn } = await countAttempt(db, key, what);
    return check({
      turn,
      uncount: async () => {
        await db.query(
          `UPDATE login_failures SET failures = greatest(failures - 1, 0), locked_until = $2
            WHERE email = $1`,
          [key, previousLock],
        );
      },
    });
  });
}

/**
 * Counts the attempt; returns its number in the window and the key's lock as it was before (for uncount), or
 * throws 429 while locked.
 */
async function countAttempt(
  db: Queryable,
  key: string,
  what: string,
): Promise<{ previousLock: Date | null; turn: number }> {
  const [counted] = await db.query<{ previous_lock: Date | null; failures: number }>(
    `WITH old AS (SELECT locked_until FROM login_failures WHERE email = $1)
     INSERT INTO login_failures (email, failures, window_started_at) VALUES ($1, 1, now())
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
     RETURNING (SELECT locked_until FROM old) AS previous_lock, login_failures.failures`,
    [key, FAILURE_WINDOW_MINUTES, FREE_FAILURES, MAX_LOCK_SECONDS, FIRST_LOCK_SECONDS],
  );
  if (counted) return { previousLock: counted.previous_lock, turn: counted.failures };
  const [lock] = await db.query<{ retry_after: number }>(
    `SELECT ceil(extract(epoch FROM locked_until - now()))::int AS retry_after
       FROM login_failures WHERE email = $1`,
    [key],
  );
  const retryAfter = Math.max(1, lock?.retry_after ?? 1);
  // a limited request: RATE_LIMITED with the headers every 429 carries (decisions.md, Settings added)
  throw new AppError('RATE_LIMITED', `Too many failed ${what}; try again later`, {
    limit: { max: FREE_FAILURES, retryAfterSeconds: retryAfter },
  });
}

export async function clearAttempts(db: Queryable, key: string): Promise<void> {
  await db.query('DELETE FROM login_failures WHERE email = $1', [key]);
}

const running = new Map<string, Promise<unknown>>();

/** Runs `task` once every earlier task of this process under `key` has settled. */
async function oneAtATime<T>(key: string, task: () => Promise<T>): Promise<T> {
  const run = (running.get(key) ?? Promise.resolve()).then(task, task);
  const settled = run.catch(() => undefined);
  running.set(key, settled);
  try {
    return await run;
  } finally {
    if (running.get(key) === settled) running.delete(key);
  }
}
