import type { Queryable } from '../../platform/db/db.js';
import { rowOrNull } from '../../platform/sql/row-or-null.js';

/*
 * The account's owner as the operator's commands see it: the first user, made with the account, and the one
 * `accounts update --password` and `--two-factor-off` act on (the account's first active owner).
 */

export async function insertOwner(
  tx: Queryable,
  accountId: number,
  owner: { name: string; email: string; passwordHash: string },
): Promise<void> {
  await tx.query(
    `INSERT INTO users (account_id, name, email, role, status, password_hash)
     VALUES ($1, $2, $3, 'owner', 'active', $4)`,
    [accountId, owner.name, owner.email, owner.passwordHash],
  );
}

/** The account's first active owner, locked for a change. */
export async function lockFirstOwner(
  q: Queryable,
  accountId: number,
): Promise<{ id: number; email: string } | null> {
  return rowOrNull<{ id: number; email: string }>(
    q,
    `SELECT id, email FROM users WHERE account_id = $1 AND role = 'owner' AND status = 'active'
      ORDER BY id LIMIT 1 FOR UPDATE`,
    [accountId],
  );
}

/** Whether the account's first active owner logs in with two factors. */
export async function ownerHasTwoFactor(q: Queryable, accountId: number): Promise<boolean> {
  const [row] = await q.query<{ on: boolean }>(
    `SELECT totp_secret_enc IS NOT NULL AS on FROM users
      WHERE account_id = $1 AND role = 'owner' AND status = 'active' ORDER BY id LIMIT 1`,
    [accountId],
  );
  return row?.on === true;
}

/** Turns a user's two-factor off (a setup under way too); whether there was any to turn off. */
export async function clearTwoFactor(tx: Queryable, userId: number): Promise<boolean> {
  const rows = await tx.query(
    `UPDATE users SET totp_secret_enc = NULL, totp_pending_enc = NULL
      WHERE id = $1 AND (totp_secret_enc IS NOT NULL OR totp_pending_enc IS NOT NULL) RETURNING id`,
    [userId],
  );
  return rows.length > 0;
}

export async function setPasswordHash(tx: Queryable, userId: number, passwordHash: string): Promise<void> {
  await tx.query('UPDATE users SET password_hash = $2 WHERE id = $1', [userId, passwordHash]);
}
