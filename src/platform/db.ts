import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

/** Anything that runs SQL: the pool, or one transaction. Services take this, so callers choose the transaction. */
export interface Queryable {
  query<T = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<T[]>;
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  tx<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Subscribe to NOTIFY on a channel; returns an unsubscribe function. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
  /** The embedded instance, for adapters that need it (pg-boss). */
  readonly pglite?: PGlite;
  readonly connectionString?: string;
}

const INT8 = 20;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** bigint columns come back as JS numbers; money in cents stays far below 2^53, and we refuse silently losing precision. */
function parseInt8(text: string): number {
  const n = BigInt(text);
  if (n > MAX_SAFE || n < -MAX_SAFE) throw new Error(`bigint value out of safe range: ${text}`);
  return Number(n);
}

pg.types.setTypeParser(INT8, parseInt8);

class PostgresDb implements Db {
  readonly kind = 'postgres' as const;
  private readonly pool: pg.Pool;
  private listener: pg.Client | undefined;
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();

  constructor(
    readonly connectionString: string,
    poolMax: number,
  ) {
    this.pool = new pg.Pool({ connectionString, max: poolMax, idleTimeoutMillis: 30000 });
    this.pool.on('error', () => {
      // an idle client died (server restart); the pool replaces it on next use
    });
  }

  async query<T>(text: string, params?: readonly unknown[]): Promise<T[]> {
    const res = await this.pool.query(text, params as unknown[] | undefined);
    return res.rows as T[];
  }

  async tx<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const q: Queryable = {
        query: async <R>(text: string, params?: readonly unknown[]) =>
          (await client.query(text, params as unknown[] | undefined)).rows as R[],
      };
      const result = await fn(q);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  async listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`bad channel name ${channel}`);
    if (!this.listener) {
      const client = new pg.Client({ connectionString: this.connectionString });
      client.on('notification', (msg) => {
        for (const h of this.handlers.get(msg.channel) ?? []) h(msg.payload ?? '');
      });
      client.on('error', () => {
        // the listener is re-established by the next listen(); callers keep polling as a fallback
        this.listener = undefined;
      });
      await client.connect();
      this.listener = client;
    }
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      await this.listener.query(`LISTEN ${channel}`);
    }
    set.add(onPayload);
    return async () => {
      set.delete(onPayload);
    };
  }

  async close(): Promise<void> {
    await this.listener?.end().catch(() => undefined);
    await this.pool.end();
  }
}

class PgliteDb implements Db {
  readonly kind = 'pglite' as const;
  constructor(readonly pglite: PGlite) {}

  async query<T>(text: string, params?: readonly unknown[]): Promise<T[]> {
    const res = await this.pglite.query<T>(text, params as unknown[] | undefined);
    return res.rows;
  }

  tx<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.pglite.transaction(async (t) =>
      fn({
        query: async <R>(text: string, params?: readonly unknown[]) =>
          (await t.query<R>(text, params as unknown[] | undefined)).rows,
      }),
    );
  }

  async listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
    return this.pglite.listen(channel, onPayload);
  }

  async close(): Promise<void> {
    await this.pglite.close();
  }
}

export interface DbOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  poolMax?: number;
}

export async function openDb(opts: DbOptions): Promise<Db> {
  if (opts.databaseUrl) return new PostgresDb(opts.databaseUrl, opts.poolMax ?? 20);
  const dir = `${opts.dataDir}/pglite`;
  mkdirSync(dir, { recursive: true });
  const pglite = await PGlite.create(dir, { parsers: { [INT8]: parseInt8 } });
  return new PgliteDb(pglite);
}

export function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: string }).code === '23505';
}
