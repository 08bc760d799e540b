import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { anyProcessIn, isAlive, isZombie } from './alive.js';
import { type Account, asAccount, type Binaries } from './os-user.js';

// The embedded PostgreSQL's cluster on disk and its server process: initdb, pg_ctl start, postmaster.pid, port.

/** The role initdb creates; the gateway connects as it. */
export const DB_USER = 'gateway';

export async function initCluster(
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
export function runningPort(cluster: string): number | null {
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
  if (!Number.isInteger(pid) || pid <= 0 || isZombie(pid)) return false;
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

/**
 * A postmaster.pid whose pid another program has taken since (after a crash and a reboot) is removed: PostgreSQL
 * would take that live process for its server and refuse to start. So is one naming a killed server left a
 * zombie (a container whose first process reaps nobody): PostgreSQL's own check signals the pid, which a zombie
 * answers, and it refused to start ("lock file postmaster.pid already exists") — but only once no backend of
 * that server still works in the cluster. One naming a dead process is left to PostgreSQL, which removes it
 * itself once no backend of the killed server is still attached to the shared memory the file names; removed
 * here, the new server would start beside those backends.
 */
export function clearStalePidFile(cluster: string): void {
  const pid = pidFile(cluster);
  if (!pid) return;
  const taken = isAlive(pid.pid) && !isPostmasterOf(pid.pid, cluster);
  const unreaped = isZombie(pid.pid) && !anyProcessIn(cluster);
  if (taken || unreaped) rmSync(path.join(cluster, 'postmaster.pid'), { force: true });
}

/**
 * The server's port: the one recorded in `file` while it is free, else a free one the system gives (recorded).
 * Never one of `avoid`: the gateway's own PORT, which it listens on only after its database has started, so a
 * port the system handed out meanwhile could be the very one it is about to take.
 */
export async function choosePort(file: string, avoid: readonly number[] = []): Promise<number> {
  const recorded = Number(existsSync(file) ? readFileSync(file, 'utf8').trim() : '');
  if (Number.isInteger(recorded) && recorded > 0 && !avoid.includes(recorded) && (await portFree(recorded)))
    return recorded;
  let port = await freePort();
  while (avoid.includes(port)) port = await freePort();
  writeFileSync(file, `${port}\n`);
  return port;
}

export function portFree(port: number): Promise<boolean> {
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

export async function startServer(
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
  // A SIGKILLed server's backends outlive it until they notice (a while on a loaded machine) and keep its shared
  // memory: PostgreSQL refuses to start beside them, so the start is tried again until they are gone.
  const deadline = Date.now() + ORPHANS_GONE_WITHIN_MS;
  for (let waited = false; ; waited = true) {
    const from = statSync(paths.log).size;
    const code = await pgCtlStart(bin, account, paths, options);
    if (code === 0) break;
    const written = readFileSync(paths.log).subarray(from).toString('utf8');
    if (/pre-existing shared memory block .* is still in use/.test(written) && Date.now() < deadline) {
      if (!waited)
        log('embedded PostgreSQL: a killed server’s processes still hold its memory; waiting for them');
      await new Promise((resolve) => setTimeout(resolve, 500));
      continue;
    }
    const tail = readFileSync(paths.log, 'utf8').trim().split('\n').slice(-3).join(' | ');
    throw new Error(`the embedded PostgreSQL did not start (see ${paths.log}): ${tail}`);
  }
  log(`embedded PostgreSQL log: ${paths.log}`);
}

/** How long a start waits for a killed server's orphaned backends to exit. */
const ORPHANS_GONE_WITHIN_MS = 60_000;

/** pg_ctl start -w, detached in a session of its own: the server outlives a killed gateway and ignores its ^C. */
async function pgCtlStart(
  bin: Binaries,
  account: Account | null,
  paths: { cluster: string; log: string },
  options: string,
): Promise<number | null> {
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
  return new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
}
