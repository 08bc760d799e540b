/**
 * Diagnostic, not a case: where the embedded default's memory goes. `node --import tsx bench/embedded-memory.ts`
 * starts `gateway serve` (dist/, as `npm start` runs it) on a fresh DATA_DIR (then once more on it: a restart),
 * loads `GET /api/public/balance` (50 connections, MEM_SECONDS, 20 by default) and prints the peak PSS and RSS
 * of the gateway and of each kind of PostgreSQL process (postmaster, client backends, the others), sampled
 * every 250 ms from /proc, and the gateway's V8 heap as it reports it on /metrics.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { openDb } from '../src/platform/db/db.js';
import { startEmbeddedPostgres } from '../src/platform/embedded-postgres/start.js';
import { fundedMerchant } from './lib.js';

const SECONDS = Number(process.env.MEM_SECONDS ?? 20);
const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-embedded-memory-'));

function serve(): Promise<{ child: ChildProcess; url: string; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, ['dist/bundle/main.mjs', 'serve'], {
    env: {
      ...process.env,
      DATABASE_URL: '',
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_KEY: '0',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /"url":"(http:\/\/[^"]+)","msg":"gateway listening"/.exec(out);
      if (m) {
        child.stdout!.removeAllListeners('data');
        child.stdout!.resume();
        resolve({ child, url: m[1]!, ms: performance.now() - started });
      }
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
  });
}

function kb(pid: number): { rss: number; pss: number } {
  try {
    const r = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    return {
      rss: Number(/^Rss:\s+(\d+)/m.exec(r)?.[1] ?? 0),
      pss: Number(/^Pss:\s+(\d+)/m.exec(r)?.[1] ?? 0),
    };
  } catch {
    return { rss: 0, pss: 0 };
  }
}

function sample(gateway: number): Record<string, { rss: number; pss: number; n: number }> {
  const postmaster = Number(
    readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0],
  );
  const out: Record<string, { rss: number; pss: number; n: number }> = {};
  const add = (kind: string, pid: number) => {
    const m = kb(pid);
    const o = out[kind] ?? { rss: 0, pss: 0, n: 0 };
    out[kind] = o;
    o.rss += m.rss;
    o.pss += m.pss;
    o.n++;
  };
  add('gateway', gateway);
  add('postmaster', postmaster);
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== postmaster) continue;
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      add(
        /postgres: \S+ \S+ 127/.test(cmd.replace(/\0/g, ' ')) || /gateway/.test(cmd)
          ? 'backends'
          : 'pg others',
        Number(pid),
      );
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

try {
  const first = await serve();
  first.child.kill('SIGTERM');
  await once(first.child, 'exit');
  const { child, url, ms } = await serve();
  console.log(`restart: listening after ${ms.toFixed(0)} ms`);
  const embedded = await startEmbeddedPostgres(dataDir, () => undefined);
  embedded.releaseStartLock();
  const db = openDb({ databaseUrl: embedded.url, poolMax: 2 });
  const m = await fundedMerchant(db);
  await db.close();
  const idle = sample(child.pid!);
  const peak: Record<string, { rss: number; pss: number; n: number }> = {};
  let total = 0;
  const timer = setInterval(() => {
    const s = sample(child.pid!);
    const sum = Object.values(s).reduce((a, v) => a + v.pss, 0);
    if (sum > total) {
      total = sum;
      Object.assign(peak, s);
    }
  }, 250);
  const r = await autocannon({
    url: `${url}/api/public/balance`,
    headers: m.keys,
    connections: 50,
    duration: SECONDS,
  });
  clearInterval(timer);
  const heap = await fetch(`${url}/metrics`)
    .then((x) => x.text())
    .catch(() => '');
  const mb = (k: number) => `${(k / 1024).toFixed(0)} MB`;
  console.log(`balance: ${r.requests.average.toFixed(0)} req/s, ${r.non2xx} non-2xx`);
  for (const [name, s] of [
    ['idle after start', idle],
    ['peak PSS sum under load', peak],
  ] as const) {
    const sum = Object.values(s).reduce((a, v) => a + v.pss, 0);
    console.log(`${name}: PSS ${mb(sum)}`);
    for (const [k, v] of Object.entries(s))
      console.log(`  ${k.padEnd(11)} ×${v.n}  PSS ${mb(v.pss)}  RSS ${mb(v.rss)}`);
  }
  for (const line of heap.split('\n').filter((l) => /^nodejs_heap_size_used_bytes|^process_resident/.test(l)))
    console.log(`  ${line}`);
  child.kill('SIGTERM');
  await once(child, 'exit');
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
