import { randomUUID } from 'node:crypto';
import pg from 'pg';

/** Anything that runs SQL: the pool, or one transaction. Services take this, so callers choose the transaction. */
export interface Queryable {
  query<T = Record<string, unknown>>(
    text: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<T[]>;
  /** In a transaction: runs `fn` once it has committed (never if it rolls back). */
  afterCommit?(fn: () => void): void;
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
  /**
   * The application_name of this handle's LISTEN connection (PostgreSQL): other processes can see in
   * pg_stat_activity whether this process still receives notifications.
   */
  readonly listenerName: string;
  /**
   * A handle whose statements each run alone (autocommit) under fixed session settings, e.g. planner
   * settings for queue tables, whose statistics are always stale: a pool of its own (`poolMax`
   * connections, settings given at connect, so a statement is one round trip). Closed with this Db.
   */
  withSettings(settings: Readonly<Record<string, string>>, poolMax: number): Queryable;
  readonly connectionString: string;
}

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

/**
 * The application_name of this process's connections: the embedded server's last user tells a connection of
 * a live process from one a process that has just exited left behind for a moment (embedded-postgres.ts).
 */
export const APP_NAME = `gateway-${process.pid}`;

function newPool(connectionString: string, max: number, options?: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    application_name: APP_NAME,
    idleTimeoutMillis: 30000,
    ...(options ? { options } : {}),
  });
  pool.on('error', () => {
    // an idle client died (server restart); the pool replaces it on next use
  });
  // A client checked out between two statements of a transaction when the server goes away emits 'error' on
  // itself, where the pool's listener is not: unheard, that event ended the process (the embedded server
  // killed under a running gateway). Its next query fails and the transaction with it; the pool drops the
  // client when it is released with that error.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  return pool;
}

async function poolQuery<T>(
  pool: pg.Pool | pg.PoolClient,
  text: string,
  params?: readonly unknown[],
  options?: QueryOptions,
): Promise<T[]> {
  const values = params as unknown[] | undefined;
  const res = options?.prepare
    ? await pool.query({ name: options.prepare, text, values })
    : await pool.query(text, values);
  return res.rows as T[];
}

/** The rows of a simple query's last statement (pg answers one result per statement). */
function lastRows<T>(res: pg.QueryResult | pg.QueryResult[]): T[] {
  const last = Array.isArray(res) ? res[res.length - 1] : res;
  return (last?.rows ?? []) as T[];
}

class PostgresDb implements Db {
  readonly listenerName = `${APP_NAME}-listener-${randomUUID()}`;
  private readonly pool: pg.Pool;
  private listener: pg.Client | undefined;
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();
  private closed = false;
  private reconnecting = false;
  private readonly settingsPools: pg.Pool[] = [];

  constructor(
    readonly connectionString: string,
    poolMax: number,
  ) {
    this.pool = newPool(connectionString, poolMax);
  }

  query<T>(text: string, params?: readonly unknown[], options?: QueryOptions): Promise<T[]> {
    return poolQuery<T>(this.pool, text, params, options);
  }

  withSettings(settings: Readonly<Record<string, string>>, poolMax: number): Queryable {
    const options = Object.entries(settings)
      .map(([name, value]) => `-c ${name}=${value}`)
      .join(' ');
    const pool = newPool(this.connectionString, poolMax, options);
    this.settingsPools.push(pool);
    return { query: (text, params, opts) => poolQuery(pool, text, params, opts) };
  }

  tx<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.txEndingWith(async (q) => [await fn(q), '']);
  }

  async txEndingWith<T>(
    fn: (tx: Queryable) => Promise<[T, string]>,
    options: { generic?: boolean } = {},
  ): Promise<T> {
    const client = await this.pool.connect();
    try {
      // a simple query may hold several statements: BEGIN travels with the transaction's first statement
      // when that one is a simple query too (no parameters), else alone
      let opening: string | null = options.generic
        ? 'BEGIN; SET LOCAL plan_cache_mode = force_generic_plan'
        : 'BEGIN';
      const committed: (() => void)[] = [];
      const q: Queryable = {
        afterCommit: (fn) => committed.push(fn),
        query: async <R>(text: string, params?: readonly unknown[], opts?: QueryOptions) => {
          if (opening !== null) {
            const begin = opening;
            opening = null;
            if (!params?.length && !opts?.prepare)
              return lastRows<R>(await client.query(`${begin};\n${text}`));
            await client.query(begin);
          }
          return poolQuery<R>(client, text, params, opts);
        },
      };
      const [result, last] = await fn(q);
      // the newline first: a trailing comment in `last` cannot swallow the separator
      const closing = last ? `${last}\n;\nCOMMIT` : 'COMMIT';
      const done: unknown = await client.query(opening !== null ? `${opening};\n${closing}` : closing);
      // PostgreSQL answers COMMIT in a failed transaction with ROLLBACK, not an error: a body that caught a
      // statement's error and went on must not be reported (or counted) as committed
      const tag = (Array.isArray(done) ? done[done.length - 1] : done) as { command?: string } | undefined;
      if (tag?.command === 'ROLLBACK')
        throw new Error('the transaction was rolled back: a statement in it failed');
      runCommitted(committed);
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
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
    const client = new pg.Client({
      connectionString: this.connectionString,
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
    if (!this.closed && !this.reconnecting) {
      this.reconnecting = true;
      void this.reconnectListener(100);
    }
  }

  private async reconnectListener(delayMs: number): Promise<void> {
    await new Promise((r) => setTimeout(r, delayMs));
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
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    await Promise.all(this.settingsPools.map((p) => p.end()));
    await this.pool.end();
  }
}

export interface DbOptions {
  databaseUrl: string;
  poolMax?: number;
}

export function openDb(opts: DbOptions): Db {
  return new PostgresDb(opts.databaseUrl, opts.poolMax ?? 20);
}

/**
 * A string as a quoted SQL literal (the driver's escaping), for the few statements that carry their values in
 * their text so they can share a round trip with others (simple-query protocol has no parameters).
 */
export const sqlLiteral: (text: string) => string = pg.escapeLiteral;

export function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: string }).code === '23505';
}
