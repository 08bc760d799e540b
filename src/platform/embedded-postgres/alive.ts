import { readdirSync, readFileSync, realpathSync } from 'node:fs';

/**
 * Whether process `pid` is running (another user's process too: signalling it is refused, not failed). A zombie
 * (killed, not yet reaped: a container whose first process reaps nobody keeps them) is not: it holds nothing.
 */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/** Whether `pid` is a zombie: exited, its entry kept until its parent reaps it (false where /proc says nothing). */
export function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) S …": the state follows the last ')', as comm may hold anything
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}

/**
 * Whether a live process works in `dir` (its working directory): a PostgreSQL backend runs in its cluster's
 * directory, and outlives a killed postmaster for a moment. True where /proc cannot tell.
 */
export function anyProcessIn(dir: string): boolean {
  let target: string;
  let pids: string[];
  try {
    target = realpathSync(dir);
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return true;
  }
  return pids.some((pid) => {
    try {
      return realpathSync(`/proc/${pid}/cwd`) === target && !isZombie(Number(pid));
    } catch {
      return false; // gone meanwhile, a zombie (no cwd), or another user's
    }
  });
}
