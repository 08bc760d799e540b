import { hashSecret, newToken, type PlainSecret } from '../../platform/crypto/secrets.js';
import type { Queryable } from '../../platform/db/db.js';
import { AppError } from '../../platform/errors/app-error.js';
import type { UserRow } from './data.js';

/** One-time links sent by e-mail: an invitation (72 hours) or a password reset (1 hour). */
export type LinkPurpose = 'invitation' | 'password_reset';

export const LINK_HOURS: Record<LinkPurpose, number> = { invitation: 72, password_reset: 1 };

export interface IssuedLink {
  token: PlainSecret;
  tokenHash: string;
  expiresAt: Date;
}

/** A new link for the user; only its token's hash is stored. */
export async function issueLink(tx: Queryable, userId: number, purpose: LinkPurpose): Promise<IssuedLink> {
  const token = newToken('', 32);
  const tokenHash = hashSecret(token);
  const [row] = await tx.query<{ expires_at: Date }>(
    `INSERT INTO user_tokens (token_hash, user_id, purpose, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(hours => $4)) RETURNING expires_at`,
    [tokenHash, userId, purpose, LINK_HOURS[purpose]],
  );
  return { token, tokenHash, expiresAt: row!.expires_at };
}

/**
 * Spends a link: its user, with the link marked used in the caller's transaction (two requests with one token:
 * the second waits for the first's row lock, then finds it used). Used, expired or unknown → 400 INVALID_TOKEN.
 */
export async function spendLink(tx: Queryable, token: string, purpose: LinkPurpose): Promise<UserRow> {
  const [row] = await tx.query<UserRow>(
    `WITH spent AS (
       UPDATE user_tokens SET used_at = now()
        WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now()
       RETURNING user_id)
     SELECT u.* FROM users u JOIN spent ON spent.user_id = u.id FOR UPDATE OF u`,
    [hashSecret(token), purpose],
  );
  if (!row) throw invalidToken();
  return row;
}

/** Every other unused link of the user for `purpose` stops working (a password was set another way). */
export async function voidLinks(tx: Queryable, userId: number, purpose: LinkPurpose): Promise<void> {
  await tx.query(
    'UPDATE user_tokens SET used_at = now() WHERE user_id = $1 AND purpose = $2 AND used_at IS NULL',
    [userId, purpose],
  );
}

/** The newest link of a purpose still unused and unexpired, if any (an invitation's expiry). */
export async function liveLinkExpiry(
  q: Queryable,
  userId: number,
  purpose: LinkPurpose,
): Promise<Date | null> {
  const [row] = await q.query<{ expires_at: Date }>(
    `SELECT expires_at FROM user_tokens
      WHERE user_id = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now()
      ORDER BY expires_at DESC LIMIT 1`,
    [userId, purpose],
  );
  return row?.expires_at ?? null;
}

/** Refuses a dead link before the slow password hash is spent on it (spendLink decides for good). */
export async function requireLiveLink(q: Queryable, token: string, purpose: LinkPurpose): Promise<void> {
  const rows = await q.query(
    'SELECT 1 FROM user_tokens WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now()',
    [hashSecret(token), purpose],
  );
  if (rows.length === 0) throw invalidToken();
}

export const invalidToken = () =>
  new AppError('INVALID_TOKEN', 'This link is invalid, was already used or has expired; ask for a new one');
