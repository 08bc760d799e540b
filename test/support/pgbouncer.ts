import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { postgresOwnedDir, removeDir } from './pg-cluster.js';
import { freePort } from './ports.js';
import { waitUntil } from './wait.js';

/**
 * Debian's PgBouncer (`apt-get install pgbouncer`) in transaction mode, from the repository's own
 * configuration (deploy/pgbouncer/pgbouncer.ini) filled in, run as the `postgres` user (it refuses root) in a
 * folder of its own, in front of one PostgreSQL server.
 */
export const PGBOUNCER = process.env.PGBOUNCER || '/usr/sbin/pgbouncer';
const TEMPLATE = path.resolve(import.meta.dirname, '../../deploy/pgbouncer/pgbouncer.ini');

const run = promisify(execFile);

export interface PgBouncer {
  port: number;
  /** A connection string through PgBouncer, as the gateway's DATABASE_URL. */
  url(database: string): string;
  /** A statement on PgBouncer's admin console (`SHOW CLIENTS`, `SHOW POOLS`). */
  admin<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  /** Its log so far. */
  log(): string;
  /** Its host dies: PgBouncer SIGKILLed (its clients' connections reset). */
  kill(): void;
  stop(): Promise<void>;
}

export async function startPgBouncer(opts: {
  server: { host: string; port: number };
  user: string;
  password: string;
  poolSize: number;
}): Promise<PgBouncer> {
  const dir = postgresOwnedDir('gw-pgbouncer-');
  const port = await freePort();
  const values: Record<string, string> = {
    SERVER_HOST: opts.server.host,
    SERVER_PORT: String(opts.server.port),
    LISTEN_HOST: '127.0.0.1',
    LISTEN_PORT: String(port),
    DIR: dir,
    ADMIN_USER: opts.user,
    POOL_SIZE: String(opts.poolSize),
    RESERVE_SIZE: '0',
  };
  const ini = readFileSync(TEMPLATE, 'utf8').replace(/@([A-Z_]+)@/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`pgbouncer.ini: no value for @${name}@`);
    return value;
  });
  const conf = path.join(dir, 'pgbouncer.ini');
  writeFileSync(conf, ini);
  writeFileSync(path.join(dir, 'userlist.txt'), `"${opts.user}" "${opts.password}"\n`);
  await run('chown', ['-R', 'postgres:postgres', dir]);
  await run('runuser', ['-u', 'postgres', '--', PGBOUNCER, '-d', '-q', conf], { cwd: '/tmp' });
  const url = (database: string) =>
    `postgres://${opts.user}:${encodeURIComponent(opts.password)}@127.0.0.1:${port}/${database}`;
  const admin = async <T>(sql: string): Promise<T[]> => {
    const client = new pg.Client({ connectionString: url('pgbouncer') });
    await client.connect();
    try {
      return (await client.query(sql)).rows as T[];
    } finally {
      await client.end();
    }
  };
  await waitUntil(
    () =>
      admin('SHOW VERSION').then(
        () => true,
        () => false,
      ),
    10_000,
    () => `PgBouncer listening on ${port}`,
  );
  const log = () => {
    try {
      return readFileSync(path.join(dir, 'pgbouncer.log'), 'utf8');
    } catch {
      return '';
    }
  };
  const pid = () => Number(readFileSync(path.join(dir, 'pgbouncer.pid'), 'utf8'));
  return {
    port,
    url,
    admin,
    log,
    kill: () => process.kill(pid(), 'SIGKILL'),
    stop: async () => {
      try {
        const running = pid();
        process.kill(running, 'SIGTERM');
        await waitUntil(
          () => {
            try {
              process.kill(running, 0);
              return false;
            } catch {
              return true;
            }
          },
          10_000,
          () => 'PgBouncer stopped',
        );
      } catch {
        // not running (or killed)
      }
      removeDir(dir);
    },
  };
}
