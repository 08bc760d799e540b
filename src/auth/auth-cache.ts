import type { Db, Queryable } from '../platform/db.js';
import { findActiveByPublicKey } from './credentials.data.js';
import type { SecretHash } from './secrets.js';

export const AUTH_CHANNEL = 'gateway_auth';
const TTL_MS = 60_000;

export interface CachedCredential {
  credentialId: number;
  accountId: number;
  privateKeyHash: SecretHash;
}

interface Entry<T> {
  value: T;
  expiresAt: number;
}

/**
 * Keeps API-key verification and IP allow-lists off the database once warm. Every change (key created or
 * revoked, IP list saved) sends NOTIFY on AUTH_CHANNEL in the changing transaction, and every process evicts
 * on receipt; the generation counter stops a load that raced with an eviction from caching stale data.
 */
export class AuthCache {
  private readonly credentials = new Map<string, Entry<CachedCredential | null>>();
  private readonly ips = new Map<number, Entry<ReadonlySet<string>>>();
  private generation = 0;

  private constructor(private readonly db: Db) {}

  static async start(db: Db): Promise<AuthCache> {
    const cache = new AuthCache(db);
    await db.listen(AUTH_CHANNEL, (payload) => cache.evict(payload));
    return cache;
  }

  evict(payload: string): void {
    this.generation++;
    if (payload.startsWith('key:')) this.credentials.delete(payload.slice(4));
    else if (payload.startsWith('ips:')) this.ips.delete(Number(payload.slice(4)));
    else {
      this.credentials.clear();
      this.ips.clear();
    }
  }

  async credential(publicKey: string): Promise<CachedCredential | null> {
    const hit = this.credentials.get(publicKey);
    if (hit && hit.expiresAt > Date.now()) return hit.value;
    const gen = this.generation;
    const row = await findActiveByPublicKey(this.db, publicKey);
    const value = row
      ? { credentialId: row.id, accountId: row.account_id, privateKeyHash: row.private_key_hash }
      : null;
    if (gen === this.generation) this.credentials.set(publicKey, { value, expiresAt: Date.now() + TTL_MS });
    return value;
  }

  async allowedIps(accountId: number): Promise<ReadonlySet<string>> {
    const hit = this.ips.get(accountId);
    if (hit && hit.expiresAt > Date.now()) return hit.value;
    const gen = this.generation;
    const rows = await this.db.query<{ ip: string }>('SELECT ip FROM allowed_ips WHERE account_id = $1', [
      accountId,
    ]);
    const value = new Set(rows.map((r) => r.ip));
    if (gen === this.generation) this.ips.set(accountId, { value, expiresAt: Date.now() + TTL_MS });
    return value;
  }
}

/** Call inside the transaction that changes credentials or IP lists; delivered to every process on commit. */
export async function notifyAuthChange(
  tx: Queryable,
  payload: `key:${string}` | `ips:${number}`,
): Promise<void> {
  await tx.query('SELECT pg_notify($1, $2)', [AUTH_CHANNEL, payload]);
}
