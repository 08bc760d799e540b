import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import pg from 'pg';
import ts from 'typescript';
import { Pool as UndiciPool } from 'undici';
import { createAccount } from '../src/accounts/accounts.js';
import { CredentialService } from '../src/auth/credentials.js';
import { postEntry } from '../src/ledger/ledger.js';
import { type Db, openDb } from '../src/platform/db/db.js';

const QUICK = Boolean(process.env.BENCH_QUICK);
export const DURATION = Number(process.env.BENCH_DURATION ?? (QUICK ? 2 : 10));
export const WARMUP = Number(process.env.BENCH_WARMUP ?? (QUICK ? 1 : 3));
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

  const { url, child } = await spawnListening('bench/server.ts', 'BENCH_SERVER', {
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    // request logging on, as in production (one access line per request); diagnostics: BENCH_LOG_LEVEL=warn
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    NODE_ENV: 'test',
    // throughput cases send far more than the default 100 requests/s per key: limits off unless a case's
    // `serverEnv` turns them on
    RATE_LIMIT_PER_KEY: '0',
    RATE_LIMIT_LOGIN_PER_IP: '0',
    RATE_LIMIT_PUBLIC_KEY: '0',
    RATE_LIMIT_PUBLIC_KEY_PER_IP: '0',
    RATE_LIMIT_BOLETO_PDF_PER_IP: '0',
    RISK_CARD_ATTEMPTS_PER_IP: '0',
    RISK_CARD_ATTEMPTS_PER_CARD: '0',
    RISK_REFUSAL_RATIO: '0',
    ...env,
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

/**
 * The server script as plain JavaScript beside it (`bench/<name>.compiled.mjs`, ignored by git), so that its
 * process runs as `npm start` runs the gateway: `node` alone. Through `--import tsx` it would also carry tsx's
 * loader, whose thread (a V8 isolate of its own) added ~40 MB to the resident memory each row reports.
 */
export function plainScript(script: string): string {
  const out = script.replace(/\.ts$/, '.compiled.mjs');
  const { outputText } = ts.transpileModule(readFileSync(script, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    fileName: script,
  });
  writeFileSync(out, outputText);
  return out;
}

/** A child process that prints `<TAG> <url>` once it listens. */
async function spawnListening(
  script: string,
  tag: string,
  env: Record<string, string>,
): Promise<{ url: string; child: ChildProcess }> {
  // diagnostics: BENCH_CHILD_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the child processes
  const childArgs = process.env.BENCH_CHILD_ARGS?.split(' ').filter(Boolean) ?? [];
  // stdout (the gateway's log, at its production level) goes to a file, as a deployment's would go to a
  // collector: reading it through a pipe would charge the load generator's process for every line
  const logFile = path.join(tmpdir(), `${tag.toLowerCase()}-${randomBytes(4).toString('hex')}.log`);
  const out = openSync(logFile, 'w');
  const child = spawn(process.execPath, [...childArgs, plainScript(script)], {
    env: { ...process.env, ...env },
    // the IPC channel ends the child when this process dies, however it dies
    stdio: ['ignore', out, 'inherit', 'ipc'],
  });
  child.channel?.unref();
  closeSync(out);
  const url = await new Promise<string>((resolve, reject) => {
    const poll = setInterval(() => {
      const m = new RegExp(`${tag} (\\S+)`).exec(readFileSync(logFile, 'utf8'));
      if (m) {
        clearInterval(poll);
        resolve(m[1]!);
      }
    }, 50);
    child.on('exit', (code) => {
      clearInterval(poll);
      reject(new Error(`${script} exited with ${code}: ${readFileSync(logFile, 'utf8').slice(-2000)}`));
    });
  });
  child.once('exit', () => rmSync(logFile, { force: true }));
  return { url, child };
}

/**
 * The bare read baseline (bench/bare-server.ts) in its own process on the gateway's database: the issue's
 * "Fastify 5, logger off, one pg Pool of 10, GET /select1". Stop it with stop().
 */
export async function startBareServer(
  server: BenchServer,
): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const { url, child } = await spawnListening('bench/bare-server.ts', 'BARE_SERVER', {
    DATABASE_URL: server.databaseUrl,
  });
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
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

/** A bench merchant with an available balance no case can exhaust (a balanced ledger entry, as a sale's). */
export async function fundedMerchant(db: Db): Promise<BenchMerchant> {
  const merchant = await benchMerchant(db);
  await db.tx((tx) =>
    postEntry(tx, {
      kind: 'bench.fund',
      refType: 'bench',
      refId: merchant.accountId,
      postings: [
        { target: { system: 'processor' }, amount: -1_000_000_000_000 },
        { target: { accountId: merchant.accountId, bucket: 'available' }, amount: 1_000_000_000_000 },
      ],
    }),
  );
  return merchant;
}

export interface Measurement {
  reqPerSec: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export type LoadOptions = Omit<autocannon.Options, 'url' | 'duration' | 'connections'> & {
  url: string;
  /** Concurrent connections; CONNECTIONS unless a case says otherwise. */
  connections?: number;
};

async function run(options: LoadOptions, duration: number): Promise<autocannon.Result> {
  return autocannon({ ...options, connections: options.connections ?? CONNECTIONS, duration });
}

/** What an evenly offered load (offerEvenly) got back. */
export type Offered = {
  /** Answers by class: '2xx', '4xx', '5xx', …; 'error' for a request that got no answer. */
  answers: Record<string, number>;
  /** Latencies (ms) from each request's scheduled time to its whole answer (2xx answers only). */
  p99: number;
};

/**
 * `rate` requests a second for `seconds`, each sent at its own scheduled time (a tick every 5 ms sends the
 * requests due by then), over up to `connections` keep-alive connections: an open loop, whatever the answers.
 * autocannon's overallRate is not that: each of its connections sends its share of a second back to back as
 * fast as answers come, then waits for the next second, and its connections' seconds start together, so a
 * server that refuses fast receives the whole second's requests in a clump at its start.
 */
export async function offerEvenly(options: {
  url: string;
  method: 'POST' | 'GET';
  headers: Record<string, string>;
  body: () => string | undefined;
  rate: number;
  seconds: number;
  connections: number;
}): Promise<Offered> {
  const origin = new URL(options.url);
  const pool = new UndiciPool(origin.origin, { connections: options.connections });
  const answers: Record<string, number> = {};
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  const total = Math.round(options.rate * options.seconds);
  const start = performance.now();
  let sent = 0;
  const send = (due: number) => {
    const body = options.body();
    pending.push(
      pool
        .request({ path: origin.pathname, method: options.method, headers: options.headers, body })
        .then(async (res) => {
          await res.body.dump();
          const kind = `${Math.floor(res.statusCode / 100)}xx`;
          answers[kind] = (answers[kind] ?? 0) + 1;
          if (kind === '2xx') latencies.push(performance.now() - due);
        })
        .catch(() => {
          answers.error = (answers.error ?? 0) + 1;
        }),
    );
  };
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const now = performance.now();
      while (sent < total && start + (sent * 1000) / options.rate <= now) {
        send(start + (sent * 1000) / options.rate);
        sent++;
      }
      if (sent >= total) {
        clearInterval(tick);
        resolve();
      }
    }, 5);
  });
  await Promise.all(pending);
  await pool.close();
  latencies.sort((a, b) => a - b);
  return { answers, p99: percentile(latencies, 99) };
}

/** One read's latency in a probe (probeApart): when it was sent (ms from the start), how long it took, its status. */
export type ProbeSample = { at: number; ms: number; status: number };

/**
 * Reads timed on a worker thread of its own (bench/read-probe.ts), `rate` a second for `seconds`: a latency
 * probe run beside a load generator in this process would count, in every answer it times, the generator's own
 * turns of the event loop before it reads the answer.
 */
export function probeApart(options: {
  url: string;
  headers: Record<string, string>;
  rate: number;
  seconds: number;
}): { started: Promise<void>; samples: Promise<ProbeSample[]> } {
  // plain JavaScript: a worker thread does not carry the --import tsx of this process
  const worker = new Worker(path.resolve(plainScript('bench/read-probe.ts')), { workerData: options });
  let begun: () => void = () => undefined;
  const started = new Promise<void>((resolve) => {
    begun = resolve;
  });
  // the samples arrive as the probe's last message; it ends by itself once it has sent them
  const samples = new Promise<ProbeSample[]>((resolve, reject) => {
    let result: ProbeSample[] | undefined;
    worker.on('message', (message: 'started' | ProbeSample[]) => {
      if (message === 'started') begun();
      else result = message;
    });
    worker.once('error', reject);
    worker.once('exit', (code) =>
      result ? resolve(result) : reject(new Error(`read probe exited with ${code} without its samples`)),
    );
  });
  // awaited later, once the load beside it is over: a failure meanwhile is not an unhandled rejection
  samples.catch(() => undefined);
  return { started: Promise.race([started, samples.then(() => undefined)]), samples };
}

/** The p-th percentile (0-100) of latencies sorted ascending, nearest rank; NaN for none. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** A probe's samples over `seconds` as a row's measurement: their rate, p99 (to 0.1 ms), non-2xx and errors. */
export function probeMeasurement(samples: readonly ProbeSample[], seconds: number): Measurement {
  const sorted = samples.map((r) => r.ms).sort((a, b) => a - b);
  return {
    reqPerSec: samples.length / seconds,
    p99: Math.round(percentile(sorted, 99) * 10) / 10,
    non2xx: samples.filter((r) => r.status < 200 || r.status > 299).length,
    errors: samples.filter((r) => r.status === 0).length,
  };
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
  /** Runs between the target and the second baseline (e.g. waits for the work the target left behind). */
  afterTarget?: () => Promise<void>,
): Promise<{ target: Measurement; baseline: Measurement }> {
  const before = await measure(baseline);
  const measured = await measure(target);
  await afterTarget?.();
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

/**
 * For two setups whose difference is small (a few per cent) against the machine's noise: after a warm-up of
 * each, `rounds` short measurements of each side alternated (baseline, target, baseline, …, baseline), each
 * side reported by its median round. Drift over the run then falls on both sides alike, and one unlucky
 * round moves neither median.
 */
export async function measureInterleaved(
  baseline: LoadOptions,
  target: LoadOptions,
  rounds = 5,
  seconds = 4,
  /** Puts the gateway in each side's state before each of its rounds (e.g. rules in force, or none). */
  setup: { target?: () => Promise<void>; baseline?: () => Promise<void> } = {},
): Promise<{ target: Measurement; baseline: Measurement; ratios: number[]; ratio: number }> {
  const side = async (options: LoadOptions, duration: number) => {
    await (options === target ? setup.target : setup.baseline)?.();
    return run(options, duration);
  };
  if (WARMUP > 0) {
    await side(baseline, WARMUP);
    await side(target, WARMUP);
  }
  const once = async (options: LoadOptions): Promise<Measurement> => {
    const r = await side(options, QUICK ? 1 : seconds);
    return { reqPerSec: r.requests.average, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
  };
  const base: Measurement[] = [await once(baseline)];
  const tgt: Measurement[] = [];
  for (let i = 0; i < rounds; i++) {
    tgt.push(await once(target));
    base.push(await once(baseline));
  }
  const median = (list: Measurement[]): Measurement => {
    const sorted = [...list].sort((a, b) => a.reqPerSec - b.reqPerSec);
    return {
      ...sorted[Math.floor(sorted.length / 2)]!,
      non2xx: list.reduce((n, m) => n + m.non2xx, 0),
      errors: list.reduce((n, m) => n + m.errors, 0),
    };
  };
  // each target round against the mean of the baseline rounds either side of it; the ratio is their median
  const ratios = tgt.map((t, i) => t.reqPerSec / ((base[i]!.reqPerSec + base[i + 1]!.reqPerSec) / 2));
  const ratio = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)]!;
  return { target: median(tgt), baseline: median(base), ratios, ratio };
}

export interface CaseRow {
  name: string;
  target: Measurement;
  baselineName: string;
  baseline: Measurement;
  goal: number;
  /** What one "request" of the target is, when not an HTTP request (e.g. "settlements"). */
  unit?: string;
  /** The ratio when it is not target ÷ baseline, e.g. the median of paired rounds (measureInterleaved). */
  ratio?: number;
}

/** A printed row as bench/results.json keeps it, with the gateway's peak resident memory so far. */
export interface RecordedRow extends CaseRow {
  case: string;
  ratio: number;
  verdict: 'OK' | 'BELOW GOAL' | 'FAILED';
  rssMb: number | null;
}

/** Every row printed in this run, for run.ts to write out. */
export const recorded: RecordedRow[] = [];

/** CPU per request of a route or a baseline (the `cost` case), as bench/results.json keeps it. */
export interface RecordedCost {
  case: string;
  name: string;
  /** The baseline the ratio is taken against; null for a baseline itself. */
  baselineName: string | null;
  requests: number;
  reqPerSec: number;
  failed: number;
  /** CPU milliseconds per request: the serving process, PostgreSQL's backends, both. */
  serverMs: number;
  postgresMs: number;
  totalMs: number;
  /**
   * Lower is cheaper; null for a baseline itself. The median over the route's rounds of each round's totalMs ÷
   * the baseline rounds' beside it (`roundRatios`), or, without rounds, totalMs ÷ the baseline's.
   */
  ratio: number | null;
  /** Each round's ratio, for a route measured in rounds alternated with its baseline's. */
  roundRatios?: number[];
  /** A read's totalMs ÷ the no-database `GET /json` ceiling's, measured in the same run; absent otherwise. */
  ceilingRatio?: number;
}

/** Every cost row printed in this run, for run.ts to write out beside the throughput rows. */
export const recordedCosts: RecordedCost[] = [];
/** Set by run.ts: the case running now and its gateway process (whose memory each row reports). */
export const current = { case: '', pid: 0 };

/** Peak resident memory (VmHWM) of a process in MB; each case runs on a fresh gateway, so it is that case's. */
export function peakRssMb(pid: number): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

export function printRow(row: CaseRow): void {
  const ratio = row.ratio ?? row.target.reqPerSec / row.baseline.reqPerSec;
  const fmt = (m: Measurement) =>
    `${m.reqPerSec.toFixed(0).padStart(7)} req/s  p99 ${String(m.p99).padStart(4)} ms${m.non2xx || m.errors ? `  (non-2xx ${m.non2xx}, errors ${m.errors})` : ''}`;
  console.log(`\n${row.name}`);
  console.log(`  target   ${fmt(row.target)}`);
  console.log(`  baseline ${fmt(row.baseline)}   [${row.baselineName}]`);
  // a target that answered anything but 2xx did not do the work being measured
  const failed = row.target.non2xx > 0 || row.target.errors > 0;
  const verdict = failed ? 'FAILED (non-2xx answers or errors)' : ratio >= row.goal ? 'OK' : 'BELOW GOAL';
  const rssMb = current.pid ? peakRssMb(current.pid) : null;
  console.log(
    `  ratio    ${ratio.toFixed(2)}  (goal >= ${row.goal})  ${verdict}   gateway peak RSS ${rssMb} MB`,
  );
  recorded.push({
    ...row,
    case: current.case,
    ratio,
    verdict: failed ? 'FAILED' : ratio >= row.goal ? 'OK' : 'BELOW GOAL',
    rssMb,
  });
}

/**
 * A benchmark case: bench/cases/<name>.ts exports `run` with this signature, and optionally `serverEnv`
 * (settings for its gateway process, e.g. `{ RATE_LIMIT_PER_KEY: '100' }`).
 */
export type BenchCase = (server: BenchServer) => Promise<void>;

/** CPU seconds one process has used so far (Linux /proc: utime + stime, USER_HZ = 100). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds used so far by the gateway, this process and every PostgreSQL process (Linux /proc). */
export function cpuSnapshot(gatewayPid: number): Record<'gateway' | 'bench' | 'postgres', number> {
  const ticks = (pid: string) => cpuSeconds(Number(pid));
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

/** A sale's body the card benches charge (method and card added by each). */
export const CARD_SALE = {
  amount: 10000,
  customer: {
    name: 'Bench Buyer',
    email: 'buyer@example.com',
    document: '52998224725',
    phone: '5511987654321',
  },
  items: [{ title: 'Curso online', unitPrice: 10000, quantity: 1, tangible: false }],
};

/** A Luhn-valid 16-digit number starting with `prefix` and ending in 0 (approved by the sandbox and the local Cielo). */
export function approvedCard(prefix = '4'): string {
  for (;;) {
    let body = prefix;
    while (body.length < 15) body += String(Math.floor(Math.random() * 10));
    const digits = `${body}0`;
    let sum = 0;
    for (let i = 0; i < 16; i++) {
      let d = Number(digits[15 - i]);
      if (i % 2 === 1) {
        d *= 2;
        if (d > 9) d -= 9;
      }
      sum += d;
    }
    if (sum % 10 === 0) return digits;
  }
}
