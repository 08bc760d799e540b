import type { Db } from '../platform/db.js';
import { notFound } from '../platform/errors.js';
import { type AuthCache, notifyAuthChange } from './auth-cache.js';
import { insertCredential, listActiveCredentials, revokeCredential } from './credentials.data.js';
import { hashSecret, newToken } from './secrets.js';

export interface IssuedCredential {
  id: number;
  publicKey: string;
  privateKey: string;
  createdAt: string;
}

export interface CredentialView {
  id: number;
  publicKey: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export class CredentialService {
  /** Without a cache (scripts, benchmarks) changes still notify every server process. */
  constructor(
    private readonly db: Db,
    private readonly cache?: AuthCache,
  ) {}

  /** 192 random bits in each key; the private key leaves only in this return value. */
  async issue(accountId: number): Promise<IssuedCredential> {
    const publicKey = newToken('pk_', 24);
    const privateKey = newToken('sk_', 24);
    let seq = 0;
    const row = await this.db.tx(async (tx) => {
      const inserted = await insertCredential(tx, accountId, publicKey, hashSecret(privateKey));
      seq = await notifyAuthChange(tx, `key:${publicKey}`); // drops any cached "unknown key" answer
      return inserted;
    });
    await this.cache?.awaitPropagation(seq);
    return { id: row.id, publicKey, privateKey, createdAt: row.created_at.toISOString() };
  }

  async list(accountId: number): Promise<CredentialView[]> {
    const rows = await listActiveCredentials(this.db, accountId);
    return rows.map((r) => ({
      id: r.id,
      publicKey: r.public_key,
      createdAt: r.created_at.toISOString(),
      lastUsedAt: r.last_used_at?.toISOString() ?? null,
    }));
  }

  async revoke(accountId: number, id: number): Promise<void> {
    let seq = 0;
    const revoked = await this.db.tx(async (tx) => {
      const publicKey = await revokeCredential(tx, accountId, id);
      if (publicKey) seq = await notifyAuthChange(tx, `key:${publicKey}`);
      return publicKey;
    });
    // answers only once every server process has dropped the key: the caller's next request fails anywhere
    await this.cache?.awaitPropagation(seq);
    if (!revoked) throw notFound('No such active credential');
  }
}
