import { CLI_ACTOR, recordForEveryAccount } from '../audit/audit.data.js';
import type { Db } from '../platform/db/db.js';

/**
 * Operator switches live in the `settings` table and are read inside the request that needs them,
 * so a change applies to the very next request on every server process.
 */
export async function setApiWithdrawals(db: Db, on: boolean): Promise<void> {
  await db.tx(async (tx) => {
    await tx.query(
      `INSERT INTO settings (key, value) VALUES ('api_withdrawals', $1)
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
      [on ? 'on' : 'off'],
    );
    // a global switch changes what every account can do: each account's log records it
    await recordForEveryAccount(tx, CLI_ACTOR, {
      action: 'settings.updated',
      target: `api_withdrawals:${on ? 'on' : 'off'}`,
    });
  });
}
