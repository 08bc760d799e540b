import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import pg from 'pg';
import { createAccount } from '../src/accounts/accounts.service.js';
import { CredentialService } from '../src/auth/credentials.service.js';
import { type Db, openDb } from '../src/platform/db.js';

export const DURATION = Number(process.env.BENCH_DURATION ?? 10);
export const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
export const CONNECTIONS = 50;
const BASE = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

export interface BenchServer {
  url: string;
  /** The gateway process. */
  pid: number;
  databaseUrl: string;
  db: Db;
  stop(): Promise<void>;
}

/** A fresh PostgreSQL database and the gateway (bench/server.ts) as a child process on it. */
export async function startBenchServer(env: Record<string, string> = {}): Promise<BenchServer> {
  const name = `gw_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: BASE });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  // diagnostics: BENCH_EXPLAIN=<ms> logs the plans of statements slower than that to PostgreSQL's log
  if (process.env.BENCH_EXPLAIN) {
    await admin.query(`ALTER DATABASE ${name} SET session_preload_libraries = 'auto_explain'`);
    await admin.query(
      `ALTER DATABASE ${name} SET auto_explain.log_min_duration = ${Math.trunc(Number(process.env.BENCH_EXPLAIN))}`,
    );
  }
  await admin.end();
  const u = new URL(BASE);
  u.pathname = `/${name}`;
  const databaseUrl = u.toString();

  // diagnostics: BENCH_CHILD_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the gateway process
  const childArgs = process.env.BENCH_CHILD_ARGS?.split(' ').filter(Boolean) ?? [];
  const child: ChildProcess = spawn(process.execPath, [...childArgs, '--import', 'tsx', 'bench/server.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'test',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /BENCH_SERVER (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`bench server exited with ${code}: ${out}`)));
  });
  const db = await openDb({ databaseUrl, poolMax: 8 });
  return {
    url,
    pid: child.pid!,
    databaseUrl,
    db,
    stop: async () => {
      await db.close();
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      const a = new pg.Client({ connectionString: BASE });
      await a.connect();
      // diagnostics: BENCH_KEEP_DB=1 keeps the database for pg_stat_* and EXPLAIN after the run
      if (process.env.BENCH_KEEP_DB) console.log(`kept database ${name}`);
      else await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

export interface BenchMerchant {
  accountId: number;
  keys: Record<string, string>;
}

export async function benchMerchant(db: Db): Promise<BenchMerchant> {
  const account = await createAccount(db, {
    name: 'Bench Merchant',
    email: `bench-${randomBytes(5).toString('hex')}@example.com`,
    password: 'bench-password',
  });
  const cred = await new CredentialService(db).issue(account.id);
  return {
    accountId: account.id,
    keys: { 'x-api-public-key': cred.publicKey, 'x-api-private-key': cred.privateKey },
  };
}

export interface Measurement {
  reqPerSec: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export type LoadOptions = Omit<autocannon.Options, 'url' | 'duration' | 'connections'> & { url: string };

async function run(options: LoadOptions, duration: number): Promise<autocannon.Result> {
  return autocannon({ ...options, connections: CONNECTIONS, duration });
}

/** Warm-up first (not measured), then DURATION seconds at 50 connections. */
export async function measure(options: LoadOptions): Promise<Measurement> {
  if (WARMUP > 0) await run(options, WARMUP);
  const r = await run(options, DURATION);
  return { reqPerSec: r.requests.average, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

/**
 * A baseline measured before and after the target and averaged: on a shared machine the load drifts during a
 * run, and a baseline taken only first (or only last) would credit or charge the target with that drift.
 */
export async function measureAround(
  baseline: LoadOptions,
  target: LoadOptions,
): Promise<{ target: Measurement; baseline: Measurement }> {
  const before = await measure(baseline);
  const measured = await measure(target);
  const after = await measure(baseline);
  return {
    target: measured,
    baseline: {
      reqPerSec: (before.reqPerSec + after.reqPerSec) / 2,
      p99: Math.max(before.p99, after.p99),
      non2xx: before.non2xx + after.non2xx,
      errors: before.errors + after.errors,
    },
  };
}

export interface CaseRow {
  name: string;
  target: Measurement;
  baselineName: string;
  baseline: Measurement;
  goal: number;
}

export function printRow(row: CaseRow): void {
  const ratio = row.target.reqPerSec / row.baseline.reqPerSec;
  const fmt = (m: Measurement) =>
    `${m.reqPerSec.toFixed(0).padStart(7)} req/s  p99 ${String(m.p99).padStart(4)} ms${m.non2xx || m.errors ? `  (non-2xx ${m.non2xx}, errors ${m.errors})` : ''}`;
  console.log(`\n${row.name}`);
  console.log(`  target   ${fmt(row.target)}`);
  console.log(`  baseline ${fmt(row.baseline)}   [${row.baselineName}]`);
  // a target that answered anything but 2xx did not do the work being measured
  const failed = row.target.non2xx > 0 || row.target.errors > 0;
  const verdict = failed ? 'FAILED (non-2xx answers or errors)' : ratio >= row.goal ? 'OK' : 'BELOW GOAL';
  console.log(`  ratio    ${ratio.toFixed(2)}  (goal >= ${row.goal})  ${verdict}`);
}

/** A benchmark case: bench/cases/<name>.ts exports `run` with this signature. */
export type BenchCase = (server: BenchServer) => Promise<void>;

/** CPU seconds used so far by the gateway, this process and every PostgreSQL process (Linux /proc). */
export function cpuSnapshot(gatewayPid: number): Record<'gateway' | 'bench' | 'postgres', number> {
  const ticks = (pid: string) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, USER_HZ = 100
  };
  let postgres = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('postgres')) postgres += ticks(pid);
    } catch {
      // the process ended meanwhile
    }
  }
  return { gateway: ticks(String(gatewayPid)), bench: ticks(String(process.pid)), postgres };
}
