import type { Queryable } from '../platform/db.js';

/**
 * Operator switches live in the `settings` table and are read inside the request that needs them,
 * so a change applies to the very next request on every server process.
 */
export async function setApiWithdrawals(q: Queryable, on: boolean): Promise<void> {
  await q.query(
    `INSERT INTO settings (key, value) VALUES ('api_withdrawals', $1)
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
    [on ? 'on' : 'off'],
  );
}
