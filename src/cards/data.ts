import type { SecretHash } from '../platform/crypto/secrets.js';
import type { Queryable } from '../platform/db/db.js';
import { rowOrNull } from '../platform/sql/row-or-null.js';
import type { CardBrand } from './brands.js';

export interface NewCardToken {
  tokenHash: SecretHash;
  accountId: number;
  acquirer: string;
  acquirerTokenSealed: string;
  brand: CardBrand;
  lastFour: string;
  expMonth: number;
  expYear: number;
  lifetimeSeconds: number;
  bin: string;
  fingerprint: string;
  ip: string | null;
}

export async function insertCardToken(db: Queryable, t: NewCardToken): Promise<void> {
  await db.query(
    `INSERT INTO card_tokens (token_hash, account_id, acquirer, acquirer_token_sealed, brand, last_four,
       exp_month, exp_year, expires_at, bin, fingerprint, ip)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + make_interval(secs => $9), $10, $11, $12)`,
    [
      t.tokenHash,
      t.accountId,
      t.acquirer,
      t.acquirerTokenSealed,
      t.brand,
      t.lastFour,
      t.expMonth,
      t.expYear,
      t.lifetimeSeconds,
      t.bin,
      t.fingerprint,
      t.ip,
    ],
  );
}

export interface UsedCardTokenRow {
  id: number;
  acquirer: string;
  acquirer_token_sealed: string;
  brand: CardBrand;
  last_four: string;
  exp_month: number;
  exp_year: number;
  bin: string | null;
  fingerprint: string | null;
  ip: string | null;
}

/** A live token (not used, not expired) as a charge reads it before using it, with the account it belongs to. */
export interface LiveCardTokenRow extends UsedCardTokenRow {
  account_id: number;
  token_hash: SecretHash;
}

/**
 * The live tokens among these hashes (not used, not expired), whatever their account, in one prepared statement:
 * read before a charge uses one (`spendCardTokens` is what uses it, checking again).
 */
export async function liveCardTokens(
  db: Queryable,
  tokenHashes: readonly SecretHash[],
): Promise<LiveCardTokenRow[]> {
  return db.query<LiveCardTokenRow>(
    `SELECT id, account_id, token_hash, acquirer, acquirer_token_sealed, brand, last_four, exp_month, exp_year, bin,
            fingerprint, ip
       FROM card_tokens WHERE token_hash = ANY($1::text[]) AND used_at IS NULL AND expires_at > now()`,
    [tokenHashes],
    { prepare: 'card_tokens_live_v1' },
  );
}

/**
 * Marks these tokens used, in one statement, each only if it is still live (not used, not expired; a second use
 * of one, even concurrent, finds it used once the first commits): the number of them it marked. Ids given twice
 * count once.
 */
export async function spendCardTokens(db: Queryable, ids: readonly number[]): Promise<number> {
  const rows = await db.query(
    `UPDATE card_tokens SET used_at = now()
      WHERE id = ANY($1::bigint[]) AND used_at IS NULL AND expires_at > now() RETURNING 1`,
    [ids],
    { prepare: 'card_tokens_spend_v1' },
  );
  return rows.length;
}

/** Marks the account's live token used and returns it; null when unknown, another account's, used or expired. */
export async function useCardToken(
  db: Queryable,
  accountId: number,
  tokenHash: SecretHash,
): Promise<UsedCardTokenRow | null> {
  const rows = await db.query<UsedCardTokenRow>(
    `UPDATE card_tokens SET used_at = now()
      WHERE token_hash = $1 AND account_id = $2 AND used_at IS NULL AND expires_at > now()
      RETURNING id, acquirer, acquirer_token_sealed, brand, last_four, exp_month, exp_year, bin, fingerprint, ip`,
    [tokenHash, accountId],
    { prepare: 'card_token_use_v1' },
  );
  return rows[0] ?? null;
}

/** The newest live token's sealed acquirer token (the process checks at start that its key opens it). */
export async function newestSealedCardToken(q: Queryable): Promise<{ what: string; sealed: string } | null> {
  return rowOrNull<{ what: string; sealed: string }>(
    q,
    `SELECT 'card token ' || id AS what, acquirer_token_sealed AS sealed FROM card_tokens
      WHERE used_at IS NULL AND expires_at > now() ORDER BY id DESC LIMIT 1`,
  );
}

/**
 * Tokens never used, expired over a day ago: nothing can use them any more, and the acquirer's token sealed in
 * them is kept no longer than it serves. Used tokens stay, named by their card sales.
 */
export async function deleteExpiredCardTokens(q: Queryable): Promise<number> {
  const rows = await q.query(
    `DELETE FROM card_tokens WHERE used_at IS NULL AND expires_at < now() - interval '1 day' RETURNING 1`,
  );
  return rows.length;
}
