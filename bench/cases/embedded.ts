import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Db, openDb } from '../../src/platform/db/db.js';
import { startEmbeddedPostgres } from '../../src/platform/embedded-postgres/start.js';
import {
  type BenchServer,
  fundedMerchant,
  type LoadOptions,
  type Measurement,
  measure,
  plainScript,
  printRow,
} from '../lib.js';

/**
 * The embedded default (no DATABASE_URL): `npm start` to a healthy server on a fresh DATA_DIR (build
 * included), a restart, resident memory of the gateway and its PostgreSQL under the balance load, and
 * balance and cashout throughput on the embedded PostgreSQL against the same gateway on the machine's
 * PostgreSQL server (the `server` this case is given), rounds alternated.
 */
export async function run(server: BenchServer): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-bench-embedded-'));
  try {
    await startupTimes(dataDir);
    await throughputAndMemory(server, dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function startupTimes(dataDir: string): Promise<void> {
  const fresh = await timeToHealthy(['npm', 'start'], dataDir);
  const restart = await timeToHealthy([process.execPath, 'dist/bundle/main.mjs', 'serve'], dataDir);
  const npmRestart = await timeToHealthy(['npm', 'start'], dataDir);
  console.log('\nembedded default: start-up (fresh DATA_DIR, then restarts)');
  console.log(`  npm start, fresh DATA_DIR, build included  ${fresh.toFixed(1)} s   (goal < 15 s)`);
  console.log(`  gateway serve, restart                     ${restart.toFixed(1)} s   (goal < 3 s)`);
  console.log(`  npm start, restart (build included)        ${npmRestart.toFixed(1)} s`);
}

/** Seconds from spawning `command` until GET /health answers 200; then a clean stop (SIGTERM). */
async function timeToHealthy(command: string[], dataDir: string): Promise<number> {
  const started = performance.now();
  const child = spawn(command[0]!, command.slice(1), {
    env: {
      ...process.env,
      DATABASE_URL: '',
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true, // its own process group: npm's child gets the SIGTERM too
  });
  const url = await listeningUrl(child);
  for (;;) {
    const ok = await fetch(`${url}/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  process.kill(-child.pid!, 'SIGTERM');
  await once(child, 'exit');
  return seconds;
}

function listeningUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /"url":"(http:\/\/[^"]+)","msg":"gateway listening"/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
  });
}

interface Side {
  name: string;
  url: string;
  db: Db;
  keys: Record<string, string>;
}

async function throughputAndMemory(server: BenchServer, dataDir: string): Promise<void> {
  const gateway = spawn(process.execPath, [plainScript('bench/server.ts')], {
    env: {
      ...process.env,
      DATABASE_URL: '',
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_KEY: '0', // off, like the suite's gateway (bench/lib.ts): one key far above 100 requests a second
    },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  gateway.channel?.unref(); // the IPC channel ends the gateway if this bench dies
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    gateway.stdout!.on('data', (d) => {
      out += d;
      const m = /BENCH_SERVER (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    gateway.once('exit', (code) => reject(new Error(`embedded bench server exited with ${code}: ${out}`)));
  });
  const embeddedDb = await startEmbeddedPostgres(dataDir, () => undefined); // found running
  embeddedDb.releaseStartLock();
  const db = openDb({ databaseUrl: embeddedDb.url, poolMax: 4 });
  try {
    const sides: Side[] = [
      { name: 'embedded', url, db, keys: (await fundedMerchant(db)).keys },
      { name: 'server', url: server.url, db: server.db, keys: (await fundedMerchant(server.db)).keys },
    ];
    const balance = (s: Side): LoadOptions => ({ url: `${s.url}/api/public/balance`, headers: s.keys });
    let n = 0;
    const cashout = (s: Side): LoadOptions => ({
      url: s.url,
      requests: [
        {
          method: 'POST',
          path: '/api/public/cashout',
          headers: { ...s.keys, 'content-type': 'application/json' },
          body: JSON.stringify({ amount: 100, pixKey: '52998224725' }),
          setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'idempotency-key': `emb-${n++}` } }),
        },
      ],
    });

    let peak = { rss: 0, pss: 0 };
    const sampler = setInterval(() => {
      const m = memoryOf(gateway.pid!, dataDir);
      peak = { rss: Math.max(peak.rss, m.rss), pss: Math.max(peak.pss, m.pss) };
    }, 500);
    const [embBalance, srvBalance] = await alternated(sides, balance, () => clearInterval(sampler));
    const [embCashout, srvCashout] = await alternated(sides, cashout);

    printRow({
      name: 'GET /api/public/balance on the embedded PostgreSQL',
      target: embBalance,
      baselineName:
        'the same route, same gateway, on the machine PostgreSQL server (2 rounds each, alternated)',
      baseline: srvBalance,
      goal: 0.9,
    });
    printRow({
      name: 'POST /api/public/cashout on the embedded PostgreSQL',
      target: embCashout,
      baselineName:
        'the same route, same gateway, on the machine PostgreSQL server (2 rounds each, alternated)',
      baseline: srvCashout,
      goal: 0.9,
    });
    const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;
    console.log(
      '\nembedded default: resident memory of the gateway + its PostgreSQL under the balance load (peak)',
    );
    console.log(
      `  PSS ${mb(peak.pss)} (shared pages counted once)   RSS sum ${mb(peak.rss)}   (goal < 250 MB)`,
    );
  } finally {
    await db.close();
    gateway.kill('SIGTERM');
    await once(gateway, 'exit');
  }
}

/** Two rounds per side, alternated (embedded, server, embedded, server); the mean of each side's rounds. */
async function alternated(
  sides: Side[],
  load: (s: Side) => LoadOptions,
  afterFirstRound?: () => void,
): Promise<Measurement[]> {
  const rounds: Measurement[][] = sides.map(() => []);
  for (let round = 0; round < 2; round++) {
    for (const [i, side] of sides.entries()) rounds[i]!.push(await measure(load(side)));
    if (round === 0) afterFirstRound?.();
  }
  return rounds.map((rs) => ({
    reqPerSec: rs.reduce((a, m) => a + m.reqPerSec, 0) / rs.length,
    p99: Math.max(...rs.map((m) => m.p99)),
    non2xx: rs.reduce((a, m) => a + m.non2xx, 0),
    errors: rs.reduce((a, m) => a + m.errors, 0),
  }));
}

/** RSS and PSS (kB) of the gateway process and of the embedded PostgreSQL's processes (Linux /proc). */
function memoryOf(gatewayPid: number, dataDir: string): { rss: number; pss: number } {
  const cluster = path.join(dataDir, 'postgres');
  const postmaster = Number(readFileSync(path.join(cluster, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const pids = [gatewayPid, postmaster];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster) pids.push(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  let rss = 0;
  let pss = 0;
  for (const pid of pids) {
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      rss += Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      pss += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return { rss, pss };
}
