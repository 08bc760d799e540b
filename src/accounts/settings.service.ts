import { CLI_ACTOR } from '../audit/audit.data.js';
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
    await tx.query(
      `INSERT INTO audit_log (account_id, actor_type, actor_id, actor_label, action, target)
       SELECT id, $1, NULL, $2, 'settings.updated', $3 FROM accounts`,
      [CLI_ACTOR.type, CLI_ACTOR.label, `api_withdrawals:${on ? 'on' : 'off'}`],
    );
  });
}
