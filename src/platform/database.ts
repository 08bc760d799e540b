import type { Config } from './config.js';
import { type Db, openDb } from './db.js';
import { type EmbeddedPostgres, startEmbeddedPostgres } from './embedded-postgres.js';

export interface OpenedDatabase {
  db: Db;
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
  opts: { poolMax?: number; log: (message: string) => void },
): Promise<OpenedDatabase> {
  const embedded: EmbeddedPostgres | undefined = config.databaseUrl
    ? undefined
    : await startEmbeddedPostgres(config.dataDir, opts.log);
  const db = openDb({ databaseUrl: embedded?.url ?? config.databaseUrl ?? '', poolMax: opts.poolMax });
  if (embedded) {
    try {
      await db.query('SELECT 1');
    } finally {
      embedded.releaseStartLock();
    }
  }
  return {
    db,
    close: async () => {
      await db.close();
      if (embedded && (await embedded.stopIfUnused())) opts.log('embedded PostgreSQL stopped');
    },
  };
}
