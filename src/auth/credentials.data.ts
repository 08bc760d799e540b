import type { Queryable } from '../platform/db.js';
import type { SecretHash } from './secrets.js';

export interface CredentialRow {
  id: number;
  account_id: number;
  public_key: string;
  private_key_hash: SecretHash;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export async function insertCredential(
  q: Queryable,
  accountId: number,
  publicKey: string,
  privateKeyHash: SecretHash,
): Promise<CredentialRow> {
  const [row] = await q.query<CredentialRow>(
    `INSERT INTO api_credentials (account_id, public_key, private_key_hash) VALUES ($1, $2, $3) RETURNING *`,
    [accountId, publicKey, privateKeyHash],
  );
  return row!;
}

export function listActiveCredentials(q: Queryable, accountId: number): Promise<CredentialRow[]> {
  return q.query<CredentialRow>(
    `SELECT * FROM api_credentials WHERE account_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id DESC`,
    [accountId],
  );
}

export async function revokeCredential(q: Queryable, accountId: number, id: number): Promise<string | null> {
  const rows = await q.query<{ public_key: string }>(
    `UPDATE api_credentials SET revoked_at = now() WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL
     RETURNING public_key`,
    [id, accountId],
  );
  return rows[0]?.public_key ?? null;
}

export async function findActiveByPublicKey(q: Queryable, publicKey: string): Promise<CredentialRow | null> {
  const rows = await q.query<CredentialRow>(
    `SELECT * FROM api_credentials WHERE public_key = $1 AND revoked_at IS NULL`,
    [publicKey],
  );
  return rows[0] ?? null;
}

export async function touchLastUsed(q: Queryable, id: number): Promise<void> {
  await q.query(`UPDATE api_credentials SET last_used_at = now() WHERE id = $1`, [id]);
}
