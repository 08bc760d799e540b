import type { Queryable } from '../../platform/db/db.js';
import { rowOrNull } from '../../platform/sql/row-or-null.js';
import type { Role } from '../roles.js';

export interface UserRow {
  id: number;
  account_id: number;
  name: string;
  email: string;
  role: Role;
  status: 'active' | 'invited';
  password_hash: string | null;
  totp_secret_enc: string | null;
  totp_pending_enc: string | null;
  created_at: Date;
  last_login_at: Date | null;
}

export async function findUser(q: Queryable, accountId: number, userId: number): Promise<UserRow | null> {
  return rowOrNull<UserRow>(q, 'SELECT * FROM users WHERE id = $1 AND account_id = $2', [userId, accountId]);
}

/** The account's users, invitations included, oldest first. */
export function listUsers(q: Queryable, accountId: number): Promise<UserRow[]> {
  return q.query<UserRow>('SELECT * FROM users WHERE account_id = $1 ORDER BY id', [accountId]);
}

/** Active users of the account whose role is one of `roles` (e-mail recipients). */
export function activeUsersWithRole(
  q: Queryable,
  accountId: number,
  roles: readonly Role[],
): Promise<UserRow[]> {
  return q.query<UserRow>(
    "SELECT * FROM users WHERE account_id = $1 AND status = 'active' AND role = ANY($2::text[]) ORDER BY id",
    [accountId, roles],
  );
}

/** The account's owners, locked: role changes and removals that could leave it with none are decided on them. */
export async function lockOwners(q: Queryable, accountId: number): Promise<number[]> {
  const rows = await q.query<{ id: number }>(
    "SELECT id FROM users WHERE account_id = $1 AND role = 'owner' AND status = 'active' ORDER BY id FOR UPDATE",
    [accountId],
  );
  return rows.map((r) => Number(r.id));
}

/** The newest sealed two-factor secret (the process checks at start that its key opens it). */
export async function newestSealedTwoFactorSecret(
  q: Queryable,
): Promise<{ what: string; sealed: string } | null> {
  return rowOrNull<{ what: string; sealed: string }>(
    q,
    `SELECT 'user ' || id || ' (two-factor)' AS what, totp_secret_enc AS sealed FROM users
      WHERE totp_secret_enc IS NOT NULL ORDER BY id DESC LIMIT 1`,
  );
}
