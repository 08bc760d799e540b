import { CLI_ACTOR, recordForAccounts } from '../audit/index.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { EVERY_ACCOUNT_ID_SQL } from './data.js';

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
    await recordForAccounts(tx, EVERY_ACCOUNT_ID_SQL, CLI_ACTOR, {
      action: 'settings.updated',
      target: `api_withdrawals:${on ? 'on' : 'off'}`,
    });
  });
}

const SETTING_KEY = /^[a-z_]+$/;

/** A scalar subquery: the switch's value (null when never set), for statements that read it beside their own. */
export function settingSql(key: string): string {
  if (!SETTING_KEY.test(key)) throw new Error(`not a setting key: ${key}`);
  return `(SELECT value FROM settings WHERE key = '${key}')`;
}

/** The setting's value, stored first as `initial` when it has none (every process then reads the same one). */
export async function settingOrInitial(q: Queryable, key: string, initial: string): Promise<string> {
  await q.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [
    key,
    initial,
  ]);
  const [row] = await q.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key]);
  return row!.value;
}
