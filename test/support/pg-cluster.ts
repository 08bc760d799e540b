import { execFile } from 'node:child_process';
import { appendFileSync, chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './ports.js';

/**
 * PostgreSQL 15 clusters of this machine's Debian binaries, run as the `postgres` user, for failover and
 * restore tests: a primary, standbys cloned from it with pg_basebackup, promotion, SIGKILL, restarts.
 */
/** The server binaries (PG_BIN to use others of the same major version layout). */
export const PG_BIN = process.env.PG_BIN || '/usr/lib/postgresql/15/bin';

const run = promisify(execFile);

async function asPostgres(binary: string, args: string[]): Promise<string> {
  const { stdout } = await run('runuser', ['-u', 'postgres', '--', path.join(PG_BIN, binary), ...args], {
    cwd: '/tmp',
  });
  return stdout;
}

/** A folder the `postgres` user owns, for clusters and WAL archives; removed with `rmSync` by the caller. */
export function postgresOwnedDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const { uid, gid } = postgresIds();
  chownSync(dir, uid, gid);
  return dir;
}

function postgresIds(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('no postgres user on this machine');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

export class Cluster {
  constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  get host(): string {
    return `127.0.0.1:${this.port}`;
  }

  url(database = 'postgres'): string {
    return `postgres://postgres@${this.host}/${database}`;
  }

  async start(): Promise<void> {
    await asPostgres('pg_ctl', ['-D', this.dir, '-l', path.join(this.dir, 'server.log'), '-w', 'start']);
  }

  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await asPostgres('pg_ctl', ['-D', this.dir, '-m', mode, '-w', 'stop']).catch(() => undefined);
  }

  /** The host dies: the postmaster and every backend of it SIGKILLed at once. */
  kill(): void {
    const pid = Number(readFileSync(path.join(this.dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          return Number(readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]) === pid;
        } catch {
          return false;
        }
      });
    process.kill(pid, 'SIGKILL');
    for (const child of children) {
      try {
        process.kill(Number(child), 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  async promote(): Promise<void> {
    await asPostgres('pg_ctl', ['-D', this.dir, '-w', 'promote']);
  }

  async query<T = Record<string, unknown>>(sql: string, database = 'postgres'): Promise<T[]> {
    const client = new pg.Client({ connectionString: this.url(database) });
    await client.connect();
    try {
      return (await client.query(sql)).rows as T[];
    } finally {
      await client.end();
    }
  }

  /** A standby of this primary, streaming from it (its name is its application_name). */
  async standby(root: string, name: string, extraConf: string[] = []): Promise<Cluster> {
    const standby = new Cluster(path.join(root, name), await freePort());
    await asPostgres('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(this.port),
      '-U',
      'postgres',
      '-D',
      standby.dir,
      '-R',
      '-X',
      'stream',
      '--checkpoint=fast',
    ]);
    // -R wrote primary_conninfo; the name makes it a synchronous standby where the primary lists it
    appendFileSync(
      path.join(standby.dir, 'postgresql.auto.conf'),
      [
        `port = ${standby.port}`,
        `primary_conninfo = 'host=127.0.0.1 port=${this.port} user=postgres application_name=${name}'`,
        ...extraConf,
        '',
      ].join('\n'),
    );
    await standby.start();
    return standby;
  }
}

/** A new primary in `root` (owned by postgres), started, trust auth on 127.0.0.1 only. */
export async function initPrimary(root: string, extraConf: string[] = []): Promise<Cluster> {
  const cluster = new Cluster(path.join(root, 'primary'), await freePort());
  await asPostgres('initdb', ['-D', cluster.dir, '-U', 'postgres', '--auth=trust', '--no-sync']);
  appendFileSync(
    path.join(cluster.dir, 'postgresql.conf'),
    [
      `port = ${cluster.port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${cluster.dir}'`,
      'wal_level = replica',
      'max_wal_senders = 10',
      'max_connections = 200',
      'shared_buffers = 32MB',
      'hot_standby = on',
      'wal_keep_size = 256MB',
      ...extraConf,
      '',
    ].join('\n'),
  );
  await cluster.start();
  return cluster;
}

/** Makes `names` the primary's synchronous standbys: a COMMIT answers once one of them has flushed it. */
export async function requireSyncStandby(primary: Cluster, name: string): Promise<void> {
  await primary.query(`ALTER SYSTEM SET synchronous_standby_names = '${name}'`);
  await primary.query('SELECT pg_reload_conf()');
  // until it is streaming as sync, a commit would wait: wait for it
  for (;;) {
    const rows = await primary.query<{ sync_state: string }>(
      `SELECT sync_state FROM pg_stat_replication WHERE application_name = '${name}'`,
    );
    if (rows[0]?.sync_state === 'sync') return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function removeDir(dir: string | undefined): void {
  if (dir) rmSync(dir, { recursive: true, force: true });
}
