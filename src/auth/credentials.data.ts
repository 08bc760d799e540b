import type { SecretHash } from '../platform/crypto/secrets.js';
import { lockForTransaction } from '../platform/db/advisory-lock.js';
import type { Queryable } from '../platform/db/db.js';
import { rowOrNull } from '../platform/sql/row-or-null.js';
import type { KeyScope } from './key-scopes.js';
import type { Role } from './roles.js';

export interface CredentialRow {
  id: number;
  account_id: number;
  name: string;
  scope: KeyScope;
  public_key: string;
  private_key_hash: SecretHash;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  last_used_ip: string | null;
  revoked_at: Date | null;
  rolled_to: number | null;
  created_by_user: boolean;
  created_by_user_id: number | null;
}

/** A listed key with its creator's role now (null: an operator's key, or its creator was removed). */
export interface ListedCredentialRow extends CredentialRow {
  creator_role: Role | null;
  creator_email: string | null;
}

export interface NewCredential {
  name: string;
  scope: KeyScope;
  expiresAt: Date | null;
  /** The panel user making it; null for an operator's command. */
  createdByUserId: number | null;
}

export async function insertCredential(
  q: Queryable,
  accountId: number,
  publicKey: string,
  privateKeyHash: SecretHash,
  spec: NewCredential,
): Promise<CredentialRow> {
  const [row] = await q.query<CredentialRow>(
    `INSERT INTO api_credentials
       (account_id, public_key, private_key_hash, name, scope, expires_at, created_by_user, created_by_user_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7::bigint IS NOT NULL, $7::bigint) RETURNING *`,
    [accountId, publicKey, privateKeyHash, spec.name, spec.scope, spec.expiresAt, spec.createdByUserId],
  );
  return row!;
}

/** Keys not revoked, expired ones included (the list shows when they stopped working). */
export function listCredentials(q: Queryable, accountId: number): Promise<ListedCredentialRow[]> {
  return q.query<ListedCredentialRow>(
    `SELECT c.*, u.role AS creator_role, u.email AS creator_email
       FROM api_credentials c LEFT JOIN users u ON u.id = c.created_by_user_id
      WHERE c.account_id = $1 AND c.revoked_at IS NULL
      ORDER BY c.created_at DESC, c.id DESC`,
    [accountId],
  );
}

/** A key narrowed in place (or vouched for at the same scope): the user doing it becomes its creator. */
export async function setScope(
  q: Queryable,
  id: number,
  scope: KeyScope,
  userId: number,
): Promise<CredentialRow> {
  const [row] = await q.query<CredentialRow>(
    `UPDATE api_credentials SET scope = $2, created_by_user = true, created_by_user_id = $3
      WHERE id = $1 RETURNING *`,
    [id, scope, userId],
  );
  return row!;
}

/**
 * The account's live pairs (neither revoked nor past their expiry, so pairs in a roll's grace count), counted
 * under the account's credentials lock so concurrent creations cannot pass the cap together.
 */
export async function lockAndCountLiveCredentials(q: Queryable, accountId: number): Promise<number> {
  await lockForTransaction(q, 'credentials', accountId);
  const [row] = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM api_credentials
      WHERE account_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
    [accountId],
  );
  return row!.n;
}

/** The account's live key (neither revoked nor expired), locked for a change. */
export async function lockLiveCredential(
  q: Queryable,
  accountId: number,
  id: number,
): Promise<CredentialRow | null> {
  return rowOrNull<CredentialRow>(
    q,
    `SELECT * FROM api_credentials
      WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
      FOR UPDATE`,
    [id, accountId],
  );
}

/** The rolled key keeps working for the grace period (never longer than it would have anyway). */
export async function markRolled(q: Queryable, id: number, newId: number, graceHours: number): Promise<Date> {
  const [row] = await q.query<{ expires_at: Date }>(
    `UPDATE api_credentials
        SET rolled_to = $2,
            expires_at = LEAST(coalesce(expires_at, 'infinity'), now() + make_interval(hours => $3))
      WHERE id = $1 RETURNING expires_at`,
    [id, newId, graceHours],
  );
  return row!.expires_at;
}

/** A key not yet revoked (expired or not), locked: its scope decides who may revoke it. */
export async function lockUnrevokedScope(
  q: Queryable,
  accountId: number,
  id: number,
): Promise<string | null> {
  const [row] = await q.query<{ scope: string }>(
    'SELECT scope FROM api_credentials WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL FOR UPDATE',
    [id, accountId],
  );
  return row?.scope ?? null;
}

export async function revokeCredential(q: Queryable, accountId: number, id: number): Promise<string | null> {
  const rows = await q.query<{ public_key: string }>(
    `UPDATE api_credentials SET revoked_at = now() WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL
     RETURNING public_key`,
    [id, accountId],
  );
  return rows[0]?.public_key ?? null;
}

/** A key as authentication needs it: not revoked (expiry is checked per request, it passes while cached). */
export async function findActiveByPublicKey(q: Queryable, publicKey: string): Promise<CredentialRow | null> {
  const rows = await q.query<CredentialRow>(
    `SELECT * FROM api_credentials WHERE public_key = $1 AND revoked_at IS NULL`,
    [publicKey],
  );
  return rows[0] ?? null;
}

/** Many keys' last use in one statement (a later use never moves back). */
export async function recordLastUses(
  q: Queryable,
  uses: readonly { id: number; at: Date; ip: string | null }[],
): Promise<void> {
  if (uses.length === 0) return;
  await q.query(
    `UPDATE api_credentials c SET last_used_at = u.at, last_used_ip = u.ip
       FROM unnest($1::bigint[], $2::timestamptz[], $3::text[]) AS u(id, at, ip)
      WHERE c.id = u.id AND (c.last_used_at IS NULL OR c.last_used_at < u.at)`,
    [uses.map((u) => u.id), uses.map((u) => u.at), uses.map((u) => u.ip)],
  );
}

/** A key's name by its public key (revoked keys too: a message may name the key a request came with). */
/** The e-mail of the user who created the key (null: made by an operator's command, or its creator is gone). */
export async function credentialCreatorEmail(q: Queryable, publicKey: string): Promise<string | null> {
  const [row] = await q.query<{ email: string }>(
    `SELECT u.email FROM api_credentials c JOIN users u ON u.id = c.created_by_user_id WHERE c.public_key = $1`,
    [publicKey],
  );
  return row?.email ?? null;
}

export async function credentialName(q: Queryable, publicKey: string): Promise<string | null> {
  const [row] = await q.query<{ name: string }>('SELECT name FROM api_credentials WHERE public_key = $1', [
    publicKey,
  ]);
  return row?.name || null;
}
