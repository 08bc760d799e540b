import type { Db, Queryable } from '../platform/db.js';
import { findActiveByPublicKey } from './credentials.data.js';
import type { SecretHash } from './secrets.js';

export const AUTH_CHANNEL = 'gateway_auth';
const TTL_MS = 60_000;
// Unknown public keys are cached too (so junk keys do not reach the database); the bound keeps a flood of
// random keys from growing memory without limit.
const MAX_ENTRIES = 10_000;
const ECHO_WAIT_MS = 2_000;

export interface CachedCredential {
  credentialId: number;
  accountId: number;
  privateKeyHash: SecretHash;
}

interface Entry<T> {
  value: T;
  expiresAt: number;
}

export type AuthChange = `key:${string}` | `ips:${number}`;

/**
 * Keeps API-key verification and IP allow-lists off the database once warm. Every change (key created or
 * revoked, IP list saved) sends NOTIFY on AUTH_CHANNEL in the changing transaction, and every process evicts
 * on receipt; the generation counter stops a load that raced with an eviction from caching stale data.
 * While the listening connection is down nothing is cached (every request reads the database), and `*`
 * clears everything when it drops and when it is back.
 */
export class AuthCache {
  private readonly credentials = new Map<string, Entry<CachedCredential | null>>();
  private readonly ips = new Map<number, Entry<ReadonlySet<string>>>();
  private readonly echoWaiters = new Map<string, Set<() => void>>();
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
    for (const resolve of this.echoWaiters.get(payload) ?? []) resolve();
  }

  /**
   * Runs `change` (a transaction that calls notifyAuthChange with `payload`) and, when it reports a change,
   * waits until this process has received its own NOTIFY: PostgreSQL hands a notification to every listener
   * at once, so by then the other processes have it too, and the caller's next request sees the change
   * wherever it lands.
   */
  async publish<T>(payload: AuthChange, change: () => Promise<T>): Promise<T> {
    let resolve = () => {};
    const echoed = new Promise<void>((r) => {
      resolve = r;
    });
    const waiters = this.echoWaiters.get(payload) ?? new Set();
    waiters.add(resolve);
    this.echoWaiters.set(payload, waiters);
    try {
      const result = await change();
      if (result && this.db.listening) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([echoed, new Promise((r) => (timer = setTimeout(r, ECHO_WAIT_MS)))]);
        clearTimeout(timer);
      }
      return result;
    } finally {
      waiters.delete(resolve);
      if (waiters.size === 0) this.echoWaiters.delete(payload);
    }
  }

  async credential(publicKey: string): Promise<CachedCredential | null> {
    const hit = this.credentials.get(publicKey);
    if (hit && hit.expiresAt > Date.now() && this.db.listening) return hit.value;
    const gen = this.generation;
    const row = await findActiveByPublicKey(this.db, publicKey);
    const value = row
      ? { credentialId: row.id, accountId: row.account_id, privateKeyHash: row.private_key_hash }
      : null;
    if (gen === this.generation && this.db.listening) remember(this.credentials, publicKey, value);
    return value;
  }

  async allowedIps(accountId: number): Promise<ReadonlySet<string>> {
    const hit = this.ips.get(accountId);
    if (hit && hit.expiresAt > Date.now() && this.db.listening) return hit.value;
    const gen = this.generation;
    const rows = await this.db.query<{ ip: string }>('SELECT ip FROM allowed_ips WHERE account_id = $1', [
      accountId,
    ]);
    const value = new Set(rows.map((r) => r.ip));
    if (gen === this.generation && this.db.listening) remember(this.ips, accountId, value);
    return value;
  }
}

function remember<K, V>(map: Map<K, Entry<V>>, key: K, value: V): void {
  map.delete(key);
  if (map.size >= MAX_ENTRIES) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
  map.set(key, { value, expiresAt: Date.now() + TTL_MS });
}

/** Call inside the transaction that changes credentials or IP lists; delivered to every process on commit. */
export async function notifyAuthChange(tx: Queryable, payload: AuthChange): Promise<void> {
  await tx.query('SELECT pg_notify($1, $2)', [AUTH_CHANNEL, payload]);
}
