import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { HostLocator } from './host-locator.js';
import { parseHostList, type SessionAttrs } from './hosts.js';
import { APP_NAME, locatedClient, newPool } from './pools.js';
import { DatabaseUnavailable, isDatabaseBusy, isDatabaseUnavailable } from './unavailable.js';

export { APP_NAME } from './pools.js';

/** Anything that runs SQL: the pool, or one transaction. Services take this, so callers choose the transaction. */
export interface Queryable {
  query<T = Record<string, unknown>>(
    text: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<T[]>;
  /** In a transaction: runs `fn` once it has committed (never if it rolls back). */
  afterCommit?(fn: () => void): void;
  /**
   * In a transaction that gathers writes (a TxLane's run, shared by independent writers): `item` is written with
   * the others of its `kind` the run's writers gave, by one statement of `kind` just before the COMMIT, in the
   * same transaction. Absent elsewhere: the caller writes at once. Nothing of the transaction may read an item
   * back before it commits.
   */
  gather?<T>(kind: GatheredWrite<T>, item: T): void;
}

/** Rows of one kind written together at the end of a transaction that gathers them (Queryable.gather). */
export interface GatheredWrite<T> {
  write(tx: Queryable, items: T[]): Promise<void>;
}

/** Rows of `kind` added in `tx`: gathered for its COMMIT where it gathers, else written at once by one statement. */
export async function addRows<T>(tx: Queryable, kind: GatheredWrite<T>, items: T[]): Promise<void> {
  if (tx.gather) for (const item of items) tx.gather(kind, item);
  else await kind.write(tx, items);
}

/** After-commit work (counters): what it throws must not turn a committed transaction into a failure. */
function runCommitted(callbacks: (() => void)[]): void {
  for (const fn of callbacks) {
    try {
      fn();
    } catch {
      // nothing to undo: the transaction has committed
    }
  }
}

/** Runs `fn` once what `q` wrote is committed: after its transaction's COMMIT, or at once outside one. */
export function whenCommitted(q: Queryable, fn: () => void): void {
  if (q.afterCommit) q.afterCommit(fn);
  else fn();
}

export interface QueryOptions {
  /**
   * Run as a named prepared statement (PostgreSQL parses and plans it once per connection). For the hottest
   * fixed-text queries only: one name must always carry the same text.
   */
  prepare?: string;
}

export interface Db extends Queryable {
  tx<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * A transaction whose last statements travel with its COMMIT, in one round trip: `fn` answers its result
   * and their text ('' for none; no parameters, so simple-query protocol). A lock they take is held only
   * for that round trip and the commit's flush; if one fails, nothing commits. `options.generic` sets
   * plan_cache_mode = force_generic_plan for the transaction: its named prepared statements are planned once
   * per connection, for statements whose planning costs as much as their execution whatever their
   * parameters (it applies to every parameterised statement of the transaction, a matter of speed only).
   */
  txEndingWith<T>(fn: (tx: Queryable) => Promise<[T, string]>, options?: { generic?: boolean }): Promise<T>;
  /**
   * Subscribe to NOTIFY on a channel; returns an unsubscribe function. The handler receives `*` when
   * notifications may have been missed (the listening connection was lost or re-established).
   */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
  /** False while notifications cannot be received (the listening connection is down). */
  readonly listening: boolean;
  /** Requests waiting for one of the pool's connections now (0 while the pool has one free). */
  readonly waiting: number;
  /**
   * The application_name of this handle's LISTEN connection (PostgreSQL): other processes can see in
   * pg_stat_activity whether this process still receives notifications.
   */
  readonly listenerName: string;
  /**
   * A handle whose statements each run alone (autocommit) under fixed session settings, e.g. planner
   * settings for queue tables, whose statistics are always stale: a pool of its own (`poolMax`
   * connections, settings given at connect, so a statement is one round trip). Closed with this Db.
   * Behind a pooler (DATABASE_DIRECT_URL) a pool with settings, or `direct`, connects to the server itself.
   */
  withSettings(
    settings: Readonly<Record<string, string>>,
    poolMax: number,
    options?: { direct?: boolean },
  ): Queryable;
  readonly connectionString: string;
  /**
   * False while the connections were lost and the server to use is being looked for (a failover): statements
   * fail at once with DatabaseUnavailable meanwhile (requests answer 503, background rounds wait for the next).
   */
  readonly available: boolean;
  /** The host new connections go to (host:port), for logs and tests. */
  readonly host: string;
  /**
   * Whether writes are stalled: a COMMIT of this process has waited COMMIT_STALL_MS or more and the server's
   * backends wait for a synchronous standby (`SyncRep`). Nothing fails meanwhile (the connections stay up,
   * reads answer) and every request that writes hangs; a long statement sent with its COMMIT is not a stall.
   * Watched by long-running processes only (false elsewhere).
   */
  readonly writesStalled: boolean;
  /**
   * Runs `fn` each time the database is back after it was lost (a failover, a restart): work that was in flight
   * then, and left in a state only a timeout would end, can be taken up at once. Returns the unsubscribe.
   */
  onRecovered(fn: () => void): () => void;
}

/** How long a COMMIT may go unanswered before the server is asked whether writes are stalled. */
export const COMMIT_STALL_MS = 5_000;

const INT8 = 20;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** bigint columns come back as JS numbers; money in cents stays far below 2^53, and we refuse silently losing precision. */
function parseInt8(text: string): number {
  if (text.length < 16) return Number(text); // at most 15 digits (and a sign): always exact
  const n = BigInt(text);
  if (n > MAX_SAFE || n < -MAX_SAFE) throw new Error(`bigint value out of safe range: ${text}`);
  return Number(n);
}

pg.types.setTypeParser(INT8, parseInt8);

async function poolQuery<T>(
  pool: pg.Pool | pg.PoolClient,
  text: string,
  params?: readonly unknown[],
  options?: QueryOptions,
  named = true,
): Promise<T[]> {
  const values = params as unknown[] | undefined;
  // through a transaction-mode pooler a name prepared on one server connection is unknown on the next
  const res =
    options?.prepare && named
      ? await pool.query({ name: options.prepare, text, values })
      : await pool.query(text, values);
  return resultRows<T>(res);
}

/**
 * The rows of every statement of a text, in order: pg answers a text of several statements (simple-query
 * protocol) with one result per statement, and one statement with its result alone.
 */
function resultRows<T>(res: pg.QueryResult | pg.QueryResult[]): T[] {
  if (!Array.isArray(res)) return res.rows as T[];
  return res.flatMap((r) => r.rows ?? []) as T[];
}

class PostgresDb implements Db {
  readonly listenerName = `${APP_NAME}-listener-${randomUUID()}`;
  private readonly pool: pg.Pool;
  private listener: pg.Client | undefined;
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();
  private closed = false;
  private reconnecting = false;
  private readonly settingsPools: pg.Pool[] = [];
  private readonly stopWatching: () => void;
  /** Ends the listener's current backoff wait early. */
  private wakeListener: (() => void) | undefined;
  /** Named prepared statements: off behind a transaction-mode pooler. */
  private readonly named: boolean;
  /** Where connections that need a session of their own go: the direct server, else the pool's. */
  private readonly session: Connection;
  /** When each COMMIT still unanswered was sent. */
  private readonly commits = new Set<{ at: number }>();
  private commitWatch: NodeJS.Timeout | undefined;
  private stalledSince: number | null = null;

  constructor(
    readonly connectionString: string,
    readonly settings: Record<string, unknown>,
    readonly locator: HostLocator,
    poolMax: number,
    direct?: Connection,
  ) {
    this.pool = newPool(locator, settings, poolMax);
    this.named = direct === undefined;
    this.session = direct ?? { locator, settings };
    // the listener comes back as soon as the new server is known, not at its next backoff step
    this.stopWatching = this.session.locator.onFound(() => this.wakeListener?.());
  }

  get available(): boolean {
    return this.locator.available;
  }

  get waiting(): number {
    return this.pool.waitingCount;
  }

  onRecovered(fn: () => void): () => void {
    return this.locator.onFound(fn);
  }

  get host(): string {
    const { host, port } = this.locator.target;
    return `${host}:${port}`;
  }

  /** How long the oldest COMMIT still unanswered has waited, in ms (0: none). */
  private get commitWaitMs(): number {
    let oldest = Number.POSITIVE_INFINITY;
    for (const commit of this.commits) oldest = Math.min(oldest, commit.at);
    return oldest === Number.POSITIVE_INFINITY ? 0 : Date.now() - oldest;
  }

  get writesStalled(): boolean {
    return this.stalledSince !== null;
  }

  /**
   * Long-running processes: a COMMIT unanswered for COMMIT_STALL_MS makes the server be asked (on a connection
   * of its own: the pool's may all be waiting in commits) whether its backends wait for a synchronous standby;
   * if so, writes are stalled, logged as an error once, and their end once commits finish again.
   */
  watchCommits(log: { warn(message: string): void; error(message: string): void }): void {
    if (this.commitWatch) return;
    const probe = this.withSettings({}, 1, { direct: true });
    let asking = false;
    this.commitWatch = setInterval(() => {
      const waited = this.commitWaitMs;
      if (waited < COMMIT_STALL_MS) {
        if (this.stalledSince !== null) {
          log.warn(
            `writes resumed: commits on ${this.host} finish again, after ${Math.round((Date.now() - this.stalledSince) / 1000)} s stalled`,
          );
          this.stalledSince = null;
        }
        return;
      }
      if (this.stalledSince !== null || asking) return;
      asking = true;
      void probe
        .query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event = 'SyncRep'")
        .then(([row]) => {
          if (!row?.n || this.stalledSince !== null || this.commitWaitMs < COMMIT_STALL_MS) return;
          this.stalledSince = Date.now() - this.commitWaitMs;
          log.error(
            `writes stalled: a COMMIT on ${this.host} has waited ${Math.round(this.commitWaitMs / 1000)} s for a synchronous standby (${row.n} backends waiting), and every request that writes waits with it: the standby named by synchronous_standby_names is gone (with Patroni, synchronous_mode_strict and no standby left)`,
          );
        })
        .catch(() => undefined) // a server that does not answer is the heartbeat's to find
        .finally(() => {
          asking = false;
        });
    }, 1_000).unref();
  }

  query<T>(text: string, params?: readonly unknown[], options?: QueryOptions): Promise<T[]> {
    return this.guarded(() => poolQuery<T>(this.pool, text, params, options, this.named));
  }

  /** Fails fast while the server is being looked for; a lost connection starts that search. */
  private async guarded<T>(run: () => Promise<T>, locator = this.locator): Promise<T> {
    if (!locator.available) throw new DatabaseUnavailable();
    try {
      return await run();
    } catch (err) {
      // a server with no room for another connection is busy, not gone: no search for another primary
      if (isDatabaseUnavailable(err) && !isDatabaseBusy(err)) locator.lost();
      throw err;
    }
  }

  withSettings(
    settings: Readonly<Record<string, string>>,
    poolMax: number,
    { direct = false }: { direct?: boolean } = {},
  ): Queryable {
    const options = Object.entries(settings)
      .map(([name, value]) => `-c ${name}=${value}`)
      .join(' ');
    // a pooler in transaction mode refuses the `options` startup parameter: settings given at connect need
    // a connection of their own to the server
    const own = direct || options !== '';
    const { locator, settings: base } = own ? this.session : this;
    const named = own ? true : this.named;
    const pool = newPool(locator, base, poolMax, options || undefined);
    this.settingsPools.push(pool);
    return {
      query: (text, params, opts) => this.guarded(() => poolQuery(pool, text, params, opts, named), locator),
    };
  }

  tx<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.txEndingWith(async (q) => [await fn(q), '']);
  }

  txEndingWith<T>(
    fn: (tx: Queryable) => Promise<[T, string]>,
    options: { generic?: boolean } = {},
  ): Promise<T> {
    return this.guarded(() => this.transaction(fn, options));
  }

  private async transaction<T>(
    fn: (tx: Queryable) => Promise<[T, string]>,
    options: { generic?: boolean },
  ): Promise<T> {
    const client = await this.pool.connect();
    let failure: unknown;
    // a simple query may hold several statements: BEGIN travels with the transaction's first statement when
    // that one is a simple query too (no parameters), else alone; until it is sent there is nothing to roll back
    // (a ROLLBACK outside a transaction is a WARNING in the server's log for every body that failed early)
    let opening: string | null = options.generic
      ? 'BEGIN; SET LOCAL plan_cache_mode = force_generic_plan'
      : 'BEGIN';
    let ended = false;
    try {
      const committed: (() => void)[] = [];
      const q: Queryable = {
        afterCommit: (fn) => committed.push(fn),
        query: async <R>(text: string, params?: readonly unknown[], opts?: QueryOptions) => {
          if (opening !== null) {
            const begin = opening;
            opening = null;
            if (!params?.length && !opts?.prepare)
              return resultRows<R>(await client.query(`${begin};\n${text}`));
            await client.query(begin);
          }
          return poolQuery<R>(client, text, params, opts, this.named);
        },
      };
      const [result, last] = await fn(q);
      // the newline first: a trailing comment in `last` cannot swallow the separator
      const closing = last ? `${last}\n;\nCOMMIT` : 'COMMIT';
      const ending = opening !== null ? `${opening};\n${closing}` : closing;
      opening = null;
      const commit = { at: Date.now() };
      this.commits.add(commit);
      const done: unknown = await client.query(ending).finally(() => this.commits.delete(commit));
      ended = true; // committed, or rolled back by the server: either way no transaction is left open
      // PostgreSQL answers COMMIT in a failed transaction with ROLLBACK, not an error: a body that caught a
      // statement's error and went on must not be reported (or counted) as committed
      const tag = (Array.isArray(done) ? done[done.length - 1] : done) as { command?: string } | undefined;
      if (tag?.command === 'ROLLBACK')
        throw new Error('the transaction was rolled back: a statement in it failed');
      runCommitted(committed);
      return result;
    } catch (err) {
      failure = err;
      if (opening === null && !ended && !isDatabaseUnavailable(err))
        await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      // a connection lost (or to a server that can no longer write) is not handed to the next caller
      client.release(isDatabaseUnavailable(failure) ? (failure as Error) : undefined);
    }
  }

  get listening(): boolean {
    return this.listener !== undefined;
  }

  async listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`bad channel name ${channel}`);
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
    }
    set.add(onPayload);
    if (this.listener) await this.listener.query(`LISTEN ${channel}`);
    else if (!this.reconnecting) await this.connectListener(); // a reconnect LISTENs on every channel
    return async () => {
      set.delete(onPayload);
    };
  }

  /**
   * One connection LISTENs on every channel. When it breaks, notifications sent meanwhile are lost, so every
   * handler is told `*` (forget everything derived from notifications) both when the connection drops and
   * once it is back; it is re-established with backoff until close().
   */
  private async connectListener(): Promise<void> {
    const { locator, settings } = this.session;
    if (!locator.available) throw new DatabaseUnavailable();
    const client = new (locatedClient(locator))({
      ...settings,
      application_name: this.listenerName,
      // a peer that vanished without closing the connection is noticed instead of silently missing NOTIFYs
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    client.on('notification', (msg) => {
      for (const h of this.handlers.get(msg.channel) ?? []) h(msg.payload ?? '');
    });
    client.on('error', () => this.listenerLost(client));
    client.on('end', () => this.listenerLost(client));
    try {
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${channel}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    this.listener = client;
  }

  private listenerLost(client: pg.Client): void {
    if (this.listener !== client) return;
    this.listener = undefined;
    this.broadcastReset();
    client.end().catch(() => undefined);
    if (!this.closed) this.session.locator.lost();
    if (!this.closed && !this.reconnecting) {
      this.reconnecting = true;
      void this.reconnectListener(100);
    }
  }

  private async reconnectListener(delayMs: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, delayMs);
      this.wakeListener = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wakeListener = undefined;
    if (this.closed || this.listener) {
      this.reconnecting = false;
      return;
    }
    try {
      await this.connectListener();
      this.reconnecting = false;
      this.broadcastReset();
    } catch {
      void this.reconnectListener(Math.min(delayMs * 2, 5000));
    }
  }

  private broadcastReset(): void {
    for (const set of this.handlers.values()) for (const h of set) h('*');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.commitWatch);
    this.stopWatching();
    this.locator.close();
    this.session.locator.close();
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    await Promise.all(this.settingsPools.map((p) => p.end()));
    await this.pool.end();
  }
}

/** A server's hosts and the settings of connections to it. */
interface Connection {
  locator: HostLocator;
  settings: Record<string, unknown>;
}

export interface DbOptions {
  /** One host, or several in libpq's form: the first writable one is used (target_session_attrs=read-write). */
  databaseUrl: string;
  /**
   * DATABASE_DIRECT_URL: `databaseUrl` is a transaction-mode pooler and this the server behind it. The LISTEN
   * connection and pools with startup settings connect here; no statement is prepared under a name.
   */
  directUrl?: string;
  poolMax?: number;
  /** How long a lost server may be looked for before that is logged as an error (DB_FAILOVER_TIMEOUT_MS). */
  failoverTimeoutMs?: number;
  /**
   * How long a statement waits for a free pooled connection (DB_POOL_WAIT_MS) before it fails as busy (a
   * request answers 503 with Retry-After; the server is not taken for lost).
   */
  poolWaitMs?: number;
  /** How long an unused pooled connection stays open (DB_POOL_IDLE_MS). */
  poolIdleMs?: number;
  log?: { warn(message: string): void; error(message: string): void };
  /** The kind of server wanted when the string does not say (a read replica: prefer-standby). */
  attrs?: SessionAttrs;
}

export function openDb(opts: DbOptions): Db & {
  locate(): Promise<void>;
  /**
   * Ask the current host every second whether it is still there (long-running processes), once it has
   * answered: a heartbeat started before the host was found would take a server still starting (or too busy
   * to accept) for one that vanished, and the search it starts would refuse the first statements of a
   * process that has just found it.
   */
  startHeartbeat(): void;
} {
  const list = parseHostList(opts.databaseUrl, opts.attrs ?? 'read-write');
  const locatorOptions = {
    failoverTimeoutMs: opts.failoverTimeoutMs ?? 30_000,
    applicationName: APP_NAME,
    ...(opts.log ? { log: opts.log } : {}),
  };
  const locator = new HostLocator(list, locatorOptions);
  // pg-pool's connectionTimeoutMillis bounds the wait for a free connection (each connection's own connect
  // timeout is its client's, pools.ts)
  const poolSettings = {
    connectionTimeoutMillis: opts.poolWaitMs ?? 10_000,
    idleTimeoutMillis: opts.poolIdleMs ?? 30_000,
  };
  const settings = { ...list.settings, ...poolSettings };
  const directList = opts.directUrl ? parseHostList(opts.directUrl, 'read-write') : undefined;
  const direct = directList && {
    locator: new HostLocator(directList, locatorOptions),
    settings: { ...directList.settings, ...poolSettings },
  };
  const db = new PostgresDb(opts.databaseUrl, settings, locator, opts.poolMax ?? 20, direct);
  return Object.assign(db, {
    locate: async () => {
      await locator.locate();
      await direct?.locator.locate();
    },
    // behind a pooler the heartbeat watches the server, not the pooler's queue: a beat waiting there for a
    // server connection (a burst) is no sign that the server is gone
    startHeartbeat: () => {
      (direct?.locator ?? locator).startHeartbeat();
      if (opts.log) db.watchCommits(opts.log);
    },
  });
}

/**
 * A string as a quoted SQL literal (the driver's escaping), for the few statements that carry their values in
 * their text so they can share a round trip with others (simple-query protocol has no parameters).
 */
export const sqlLiteral: (text: string) => string = pg.escapeLiteral;

export function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: string }).code === '23505';
}
