import type { Config } from '../config/config.js';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../embedded-postgres/start.js';
import { type Db, openDb, type Queryable } from './db.js';
import { ReadReplica } from './read-replica.js';

export interface OpenedDatabase {
  db: Db;
  /** The panel's lists, exports and statement: the replica of DATABASE_READ_URL when fresh, else `db`. */
  reads: Queryable;
  /** Closes the pool; the embedded server is stopped too when this process was its last client. */
  close(): Promise<void>;
}

/**
 * The database of the configuration: DATABASE_URL, or the embedded PostgreSQL in DATA_DIR (started when it
 * is not running). Either way the gateway is a plain `pg` client; `connected` runs once the pool holds a
 * connection (migrations, say), before other processes may stop an embedded server it found running.
 */
export async function openDatabase(
  config: Config,
  opts: {
    poolMax?: number;
    log: (message: string) => void;
    /** A long-running process (serve, worker) watches the embedded server and starts it again if it dies. */
    watch?: { warn: (message: string) => void; error?: (message: string) => void };
  },
): Promise<OpenedDatabase> {
  const embedded: EmbeddedPostgres | undefined = config.databaseUrl
    ? undefined
    : await startEmbeddedPostgres(config.dataDir, opts.log, {
        // the gateway listens on PORT only once its database is up: the server must not have taken it meanwhile
        avoidPorts: config.port > 0 ? [config.port] : [],
      });
  const db = openDb({
    databaseUrl: embedded?.url ?? config.databaseUrl ?? '',
    ...(config.databaseDirectUrl && !embedded ? { directUrl: config.databaseDirectUrl } : {}),
    poolMax: opts.poolMax,
    failoverTimeoutMs: config.dbFailoverTimeoutMs,
    poolWaitMs: config.dbPoolWaitMs,
    poolIdleMs: config.dbPoolIdleMs,
    log: { warn: opts.watch?.warn ?? opts.log, error: opts.watch?.error ?? opts.log },
  });
  // several hosts: start on the writable one (the others are standbys, or a primary that was replaced)
  if (!embedded) {
    // a command fails at once; a long-running process waits DB_FAILOVER_TIMEOUT_MS for a host that is slow to
    // answer or still starting (its supervisor would restart it anyway), as it waits for one during a failover
    const waitMs = opts.watch ? config.dbFailoverTimeoutMs : 0;
    await locateWithin(db.locate, waitMs, opts.watch?.warn).catch(async (err: unknown) => {
      await db.close();
      throw err;
    });
  }
  if (embedded) {
    try {
      await db.query('SELECT 1');
    } finally {
      embedded.releaseStartLock();
    }
  }
  // the host has answered: from now on its silence is a loss
  if (opts.watch) db.startHeartbeat();
  const watchdog = embedded && opts.watch ? watchEmbedded(embedded, opts.watch.warn) : undefined;
  // a replica that is down at start is no reason not to start: its reads go to the primary until it is back
  const replica = config.databaseReadUrl
    ? new ReadReplica(
        db,
        openDb({
          databaseUrl: config.databaseReadUrl,
          poolMax: opts.poolMax,
          poolIdleMs: config.dbPoolIdleMs,
          attrs: 'prefer-standby',
        }),
        config.databaseReadMaxLagMs,
      )
    : undefined;
  return {
    db,
    reads: replica ?? db,
    close: async () => {
      if (watchdog) clearInterval(watchdog);
      await replica?.close();
      await db.close();
      if (embedded && (await embedded.stopIfUnused())) opts.log('embedded PostgreSQL stopped');
    },
  };
}

const WATCH_EVERY_MS = 5_000;

/**
 * The embedded server killed under a running gateway (the OOM killer, a mistaken kill) is started again
 * within seconds, on its port, so the pool's connections come back without an operator: `npm start` needs
 * nothing else. A server that cannot start is said in the log on every round until it can.
 */
function watchEmbedded(embedded: EmbeddedPostgres, warn: (message: string) => void): NodeJS.Timeout {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    embedded
      .ensureRunning()
      .then(
        (started) => {
          if (started) warn('the embedded PostgreSQL was not running: started it again');
        },
        (err: unknown) => warn(err instanceof Error ? err.message : String(err)),
      )
      .finally(() => {
        busy = false;
      });
  }, WATCH_EVERY_MS);
  timer.unref();
  return timer;
}

/** Rounds over the hosts until one fits, for up to `waitMs` (one round when 0); the last round's error. */
async function locateWithin(
  locate: () => Promise<void>,
  waitMs: number,
  warn?: (message: string) => void,
): Promise<void> {
  const started = Date.now();
  for (let round = 1; ; round++) {
    try {
      await locate();
      return;
    } catch (err) {
      if (Date.now() - started >= waitMs) throw err;
      if (round === 1) {
        warn?.(`${(err as Error).message}; trying again for up to ${waitMs} ms (DB_FAILOVER_TIMEOUT_MS)`);
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}
