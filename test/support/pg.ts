import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server tests run against: DATABASE_URL if set, else the local PostgreSQL (trust auth, user postgres). */
export const BASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
// Each checkout gets its own namespace, so test runs of several work trees on one server never collide;
// TEST_DB_NAMESPACE (letters and digits) gives runs in one work tree namespaces apart.
export const NAMESPACE = /^[a-z0-9]{1,16}$/.test(process.env.TEST_DB_NAMESPACE ?? '')
  ? process.env.TEST_DB_NAMESPACE!
  : createHash('sha256').update(process.cwd()).digest('hex').slice(0, 8);
export const TEMPLATE_DB = `gw_tpl_${NAMESPACE}`;
export const TEST_DB_PREFIX = `gw_t_${NAMESPACE}_`;

export function urlFor(database: string): string {
  const u = new URL(BASE_URL);
  u.pathname = `/${database}`;
  return u.toString();
}

export async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: BASE_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The comment `drop` leaves on a database its test is done with. */
const RELEASED = 'released by its test';

/**
 * A database this large is dropped as soon as its test is done (its disk space matters more than a checkpoint);
 * a smaller one is left for `dropTestDatabases`.
 */
const DROP_NOW_BYTES = 256 * 1024 * 1024;

/**
 * A fresh database cloned from the migrated template. The returned `drop` ends its connections and closes it to
 * new ones, and leaves the DROP DATABASE to `dropTestDatabases` (every 30 s and at the end of the run, from
 * global-setup), unless it is larger than DROP_NOW_BYTES: each DROP DATABASE makes the server take an immediate
 * checkpoint (pg_stat_bgwriter's checkpoints_req rose by one per test file), which writes and fsyncs at once
 * every page the other files running meanwhile had dirtied, stalls their commits, and makes each page's next
 * change write a full-page image to the WAL. Drops made together share their checkpoints.
 */
export async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${TEST_DB_PREFIX}${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DB}`));
  return {
    url: urlFor(name),
    drop: () =>
      admin(async (c) => {
        const [row] = (
          await c.query<{ size: string }>(
            'SELECT pg_database_size(datname)::text AS size FROM pg_database WHERE datname = $1',
            [name],
          )
        ).rows;
        if (!row) return;
        if (Number(row.size) > DROP_NOW_BYTES) {
          await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
          return;
        }
        // nothing of the test goes on using it meanwhile (a connection it left open would hold a backend)
        await c.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
        await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
        // marked released: closed to connections alone is also a test's own outage (metrics-outage,
        // outage-log), which the reaper dropped under it
        await c.query(`COMMENT ON DATABASE ${name} IS '${RELEASED}'`);
      }),
  };
}

/**
 * Drops this namespace's test databases (made by freshDatabase, or by a test under TEST_DB_PREFIX): those their
 * tests are done with (`released`: closed and marked by `drop`), or all; sixteen at a time, so that their
 * checkpoints are taken together.
 */
export async function dropTestDatabases(which: 'released' | 'all'): Promise<void> {
  const names = await admin(async (c) =>
    (
      await c.query<{ datname: string }>(
        `SELECT datname FROM pg_database
          WHERE starts_with(datname, $1)
            AND ($2 OR (NOT datallowconn AND shobj_description(oid, 'pg_database') = $3))`,
        [TEST_DB_PREFIX, which === 'all', RELEASED],
      )
    ).rows.map((r) => r.datname),
  );
  const dropper = () =>
    admin(async (c) => {
      for (let name = names.shift(); name; name = names.shift()) {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }
    });
  await Promise.all(Array.from({ length: Math.min(16, names.length) }, dropper));
}
