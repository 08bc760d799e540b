import type { Logger } from 'pino';
import type { SecretHash } from '../platform/crypto/secrets.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { findActiveByPublicKey } from './credentials.data.js';
import type { KeyScope } from './key-scopes.js';

export const AUTH_CHANNEL = 'gateway_auth';
const TTL_MS = 60_000;
// Unknown public keys are cached too (so junk keys do not reach the database); the bound keeps a flood of
// random keys from growing memory without limit.
const MAX_ENTRIES = 10_000;
const PROPAGATION_WAIT_MS = 3_000;

export interface CachedCredential {
  credentialId: number;
  accountId: number;
  /** The key's name (keys are never renamed): the audit log names a key by it. */
  name: string;
  privateKeyHash: SecretHash;
  scope: KeyScope;
  /** Epoch ms after which the key is refused (expiry, or the end of a roll's grace period); null: never. */
  expiresAt: number | null;
}

interface Entry<T> {
  value: T;
  expiresAt: number;
}

export type AuthChange = `key:${string}` | `ips:${number}` | `acct:${number}`;

/** What the hooks need of an account: its status (closed, pending or suspended ones are refused) and hold. */
export interface CachedAccount {
  status: 'pending_review' | 'active' | 'suspended' | 'closed';
  payoutHold: boolean;
}
/** Reads an account's standing (the accounts module's, handed in by app.ts: auth does not read its table). */
export type AccountLoader = (q: Queryable, accountId: number) => Promise<CachedAccount | null>;

const CURRENT_SEQ = `(SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM auth_change_seq)`;
/** The node's LISTEN connection (application_name = node id) is gone: it crashed or lost its listener. */
const NOT_LISTENING = `NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.application_name = auth_nodes.id)`;

/**
 * Keeps API-key verification (scope and expiry included) and IP allow-lists off the database once warm. Every change (key created or
 * revoked, IP list saved) sends a numbered NOTIFY on AUTH_CHANNEL in the changing transaction; every process
 * evicts on receipt and records the number in auth_nodes, and the changing request waits until every live
 * process has (awaitPropagation). A generation counter stops a load that raced with an eviction from caching
 * stale data. While the listening connection is down nothing cached is trusted; `*` clears everything when
 * the connection drops and when it is back.
 */
export class AuthCache {
  private readonly credentials = new Map<string, Entry<CachedCredential | null>>();
  private readonly ips = new Map<number, Entry<ReadonlySet<string>>>();
  private readonly accounts = new Map<number, Entry<CachedAccount | null>>();
  private readonly watchers = new Set<(change: string) => void>();
  private generation = 0;

  private constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly loadAccount: AccountLoader,
  ) {}

  private get nodeId(): string {
    return this.db.listenerName;
  }

  static async start(db: Db, log: Logger, loadAccount: AccountLoader): Promise<AuthCache> {
    const cache = new AuthCache(db, log, loadAccount);
    await db.listen(AUTH_CHANNEL, (payload) => cache.onNotify(payload));
    // Registered after LISTEN: every change numbered above seen_seq reaches this process.
    await db.query(`INSERT INTO auth_nodes (id, seen_seq) VALUES ($1, ${CURRENT_SEQ})`, [cache.nodeId]);
    await db.query(`DELETE FROM auth_nodes WHERE id <> $1 AND ${NOT_LISTENING}`, [cache.nodeId]);
    return cache;
  }

  async stop(): Promise<void> {
    await this.db.query('DELETE FROM auth_nodes WHERE id = $1', [this.nodeId]).catch(() => undefined);
  }

  private onNotify(message: string): void {
    const bar = message.indexOf('|');
    const seq = bar > 0 ? Number(message.slice(0, bar)) : 0;
    this.evict(bar > 0 ? message.slice(bar + 1) : message);
    const ack =
      message === '*'
        ? this.db.query(`UPDATE auth_nodes SET seen_seq = GREATEST(seen_seq, ${CURRENT_SEQ}) WHERE id = $1`, [
            this.nodeId,
          ])
        : seq > 0
          ? this.db.query('UPDATE auth_nodes SET seen_seq = GREATEST(seen_seq, $2) WHERE id = $1', [
              this.nodeId,
              seq,
            ])
          : undefined;
    ack?.catch(() => undefined);
  }

  evict(payload: string): void {
    this.generation++;
    if (payload.startsWith('key:')) this.credentials.delete(payload.slice(4));
    else if (payload.startsWith('ips:')) this.ips.delete(Number(payload.slice(4)));
    else if (payload.startsWith('acct:')) this.accounts.delete(Number(payload.slice(5)));
    else {
      this.credentials.clear();
      this.ips.clear();
      this.accounts.clear();
    }
    for (const watcher of this.watchers) watcher(payload);
  }

  /**
   * Tells `watcher` of every change this process applies (a key's, an allow-list's, an account's, or `*`), once
   * its entries are evicted: what a long-lived request admitted earlier (an event stream) checks itself again
   * on. Returns how to stop.
   */
  watch(watcher: (change: string) => void): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /**
   * Waits until every process whose LISTEN connection is alive has applied change `seq`. A process that
   * crashed has no connection left, so it is not waited for; the wait is bounded in any case. Best effort:
   * the change is committed already, so a failed or timed-out wait is logged, never turned into an error.
   */
  async awaitPropagation(seq: number): Promise<void> {
    if (seq <= 0) return;
    const deadline = Date.now() + PROPAGATION_WAIT_MS;
    try {
      for (let wait = 1; Date.now() < deadline; wait = Math.min(wait * 2, 50)) {
        const [row] = await this.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM auth_nodes WHERE seen_seq < $1 AND NOT ${NOT_LISTENING}`,
          [seq],
        );
        if (!row || row.n === 0) return;
        await new Promise((r) => setTimeout(r, wait));
      }
      this.log.warn({ seq }, 'auth change not acknowledged by every process within the wait');
    } catch (err) {
      this.log.warn({ err, seq }, 'could not wait for an auth change to reach every process');
    }
  }

  private trusted(): boolean {
    return this.db.listening;
  }

  async credential(publicKey: string): Promise<CachedCredential | null> {
    const hit = this.credentials.get(publicKey);
    if (hit && hit.expiresAt > Date.now() && this.trusted()) return hit.value;
    const gen = this.generation;
    const row = await findActiveByPublicKey(this.db, publicKey);
    const value = row
      ? {
          credentialId: Number(row.id),
          accountId: Number(row.account_id),
          name: row.name,
          privateKeyHash: row.private_key_hash,
          scope: row.scope,
          expiresAt: row.expires_at ? row.expires_at.getTime() : null,
        }
      : null;
    if (gen === this.generation && this.trusted()) remember(this.credentials, publicKey, value);
    return value;
  }

  /** The account's status and payout hold (null: no such account). */
  async account(accountId: number): Promise<CachedAccount | null> {
    const hit = this.accounts.get(accountId);
    if (hit && hit.expiresAt > Date.now() && this.trusted()) return hit.value;
    const gen = this.generation;
    const value = await this.loadAccount(this.db, accountId);
    if (gen === this.generation && this.trusted()) remember(this.accounts, accountId, value);
    return value;
  }

  async allowedIps(accountId: number): Promise<ReadonlySet<string>> {
    const hit = this.ips.get(accountId);
    if (hit && hit.expiresAt > Date.now() && this.trusted()) return hit.value;
    const gen = this.generation;
    const rows = await this.db.query<{ ip: string }>('SELECT ip FROM allowed_ips WHERE account_id = $1', [
      accountId,
    ]);
    const value = new Set(rows.map((r) => r.ip));
    if (gen === this.generation && this.trusted()) remember(this.ips, accountId, value);
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

/**
 * Call inside the transaction that changes credentials or IP lists; delivered to every process on commit.
 * Returns the change number to pass to AuthCache.awaitPropagation once the transaction has committed.
 */
export async function notifyAuthChange(tx: Queryable, payload: AuthChange): Promise<number> {
  const [row] = await tx.query<{ seq: number }>(
    `SELECT seq, pg_notify($1, seq || '|' || $2) FROM (SELECT nextval('auth_change_seq') AS seq) s`,
    [AUTH_CHANNEL, payload],
  );
  return row!.seq;
}
