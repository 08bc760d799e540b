import type { Db, Queryable, QueryOptions } from './db.js';

const CHECK_EVERY_MS = 1_000;
const MAX_SAMPLES = 3_600;

interface Sample {
  at: number;
  lsn: bigint;
}

/**
 * Reads that may be served by a replica (DATABASE_READ_URL): the panel's lists, exports and statement. Each
 * second the primary's WAL position is noted and the replica's replay position read; the replica is used
 * while it answers and has replayed everything the primary had written DATABASE_READ_MAX_LAG_MS ago.
 * Otherwise, and for any statement that fails on it, the primary answers. Nothing that decides money reads
 * here: those statements take the primary's `Db`.
 */
export class ReadReplica implements Queryable {
  private fresh = false;
  private samples: Sample[] = [];
  private readonly timer: NodeJS.Timeout;
  private checking = false;

  constructor(
    private readonly primary: Db,
    private readonly replica: Db,
    private readonly maxLagMs: number,
  ) {
    this.timer = setInterval(() => void this.check(), CHECK_EVERY_MS);
    this.timer.unref();
    void this.check();
  }

  /** Whether reads go to the replica now (for tests and logs). */
  get usingReplica(): boolean {
    return this.fresh;
  }

  async query<T>(text: string, params?: readonly unknown[], options?: QueryOptions): Promise<T[]> {
    if (this.fresh) {
      try {
        return await this.replica.query<T>(text, params, options);
      } catch {
        // a read can be asked again: a replica lost, or cancelled by its replay (a recovery conflict), leaves
        // it to the primary, until the next check finds the replica well again
        this.fresh = false;
      }
    }
    return this.primary.query<T>(text, params, options);
  }

  /** Ends the checks and closes the replica's connections (the primary is its owner's to close). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.replica.close();
  }

  private async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      const now = Date.now();
      const [primaryAt] = await this.primary.query<{ lsn: string }>(
        'SELECT pg_current_wal_lsn()::text AS lsn',
      );
      this.samples.push({ at: now, lsn: parseLsn(primaryAt!.lsn) });
      const [replicaAt] = await this.replica.query<{ lsn: string | null }>(
        `SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END)::text AS lsn`,
      );
      const replayed = replicaAt?.lsn ? parseLsn(replicaAt.lsn) : -1n;
      // the oldest position the replica has not replayed: it is behind by at least that sample's age
      const behind = this.samples.find((s) => s.lsn > replayed);
      this.fresh = behind === undefined || now - behind.at <= this.maxLagMs;
      // kept: what is not replayed yet, and the newest (bounded: an hour behind is behind whatever the limit)
      this.samples = this.samples
        .filter((s) => s.lsn > replayed || s === this.samples.at(-1))
        .slice(-MAX_SAMPLES);
    } catch {
      this.fresh = false;
    } finally {
      this.checking = false;
    }
  }
}

/** `X/Y` (two hexadecimal halves) as one number. */
function parseLsn(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}
