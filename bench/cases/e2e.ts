import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { CredentialService } from '../../src/auth/credentials.js';
import { type BenchServer, CONNECTIONS, DURATION, measure, printRow, WARMUP } from '../lib.js';
import { seedSales, settleRequests, steadySeed } from './settlement.js';
import { setupTargets, startReceivers } from './webhooks.js';

/** PAGO requests in flight (BENCH_E2E_CONCURRENCY: 50 saturates two cores). */
const CONCURRENCY = Number(process.env.BENCH_E2E_CONCURRENCY ?? 16);
/** How long deliveries may trail the last fact before the case reports what arrived. */
const DRAIN_MS = 30_000;

const pct = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;

/**
 * End to end: sale → PAGO (sandbox status route, concurrency 16 unless BENCH_E2E_CONCURRENCY, one merchant with a permanent webhook for
 * every event) → the signed delivery arriving at a local receiver (its own thread, answers 200 at once).
 * Reports facts/s (sale.paid facts committed, warm-up included, from the first to the last), deliveries/s (first arrivals, from the first fact to the
 * last arrival) and fact → arrival p50/p99 (notification_events.created_at to the receiver's clock, one
 * machine). The row's "baseline" is the fact rate: deliveries keep up when the ratio is ≥ 0.95.
 */
export async function run(server: BenchServer): Promise<void> {
  const receivers = await startReceivers(['127.0.0.1']);
  const worker = SPLIT ? startWorkerProcess(server) : null;
  try {
    const [target] = await setupTargets(server, receivers.urls);
    const cred = await new CredentialService(server.db).issue(target!.accountId);
    const m = {
      accountId: target!.accountId,
      keys: { 'x-api-public-key': cred.publicKey, 'x-api-private-key': cred.privateKey },
    };
    const ids = await seedSales(server.db, m.accountId, Math.max(20_000, (DURATION + WARMUP) * 4000));
    await steadySeed(server.db);

    await receivers.reset();
    const started = Date.now();
    const load = await measure({
      url: server.url,
      requests: settleRequests([{ m, ids }]),
      connections: CONCURRENCY,
    });
    // requests still in flight when the load stopped commit a little later: count after a short pause
    await new Promise((r) => setTimeout(r, 500));
    const [facts] = await server.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM notification_events WHERE event_type = 'sale.paid' AND account_id = $1`,
      [m.accountId],
    );
    const deadline = Date.now() + DRAIN_MS;
    while (receivers.received() < facts!.n && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    const seen = await receivers.firstSeen();
    const created = await server.db.query<{ id: string; at: number }>(
      `SELECT id::text AS id, (extract(epoch FROM created_at) * 1000)::float8 AS at FROM notification_events
        WHERE event_type = 'sale.paid' AND account_id = $1`,
      [m.accountId],
    );
    const lags: number[] = [];
    let lastArrival = 0;
    for (const { id, at } of created) {
      const arrived = seen.get(id);
      if (arrived === undefined) continue;
      lags.push(arrived - at);
      lastArrival = Math.max(lastArrival, arrived);
    }
    lags.sort((a, b) => a - b);
    await breakdown(server, m.accountId, seen);
    const first = Math.min(...created.map((c) => c.at));
    const last = Math.max(...created.map((c) => c.at));
    const factRate = created.length / Math.max(0.001, (last - first) / 1000);
    const deliveryRate = lags.length / Math.max(0.001, (lastArrival - first) / 1000);
    const p50 = Math.round(pct(lags, 50));
    const p99 = Math.round(pct(lags, 99));
    console.log(
      `\ne2e: ${created.length} facts at ${factRate.toFixed(0)}/s, ${lags.length} delivered at ${deliveryRate.toFixed(0)}/s, fact → arrival p50 ${p50} ms p99 ${p99} ms (${((Date.now() - started) / 1000).toFixed(0)} s; PAGO requests ${load.reqPerSec.toFixed(0)}/s at ${CONCURRENCY} of ${CONNECTIONS} connections)`,
    );
    printRow({
      name: 'end to end: sale → PAGO → webhook delivery (deliveries/s vs facts/s; p99 = fact → arrival)',
      unit: 'deliveries',
      target: {
        reqPerSec: deliveryRate,
        p99,
        non2xx: facts!.n - lags.length,
        errors: load.errors + load.non2xx,
      },
      baselineName: `sale.paid facts made per second (fact → arrival p50 ${p50} ms)`,
      baseline: { reqPerSec: factRate, p99: Math.round(load.p99), non2xx: 0, errors: 0 },
      goal: 0.95,
    });
  } finally {
    await receivers.close();
    if (worker) {
      worker.kill('SIGTERM');
      await once(worker, 'exit');
    }
  }
}

/**
 * Where a fact's time goes: fact → its delivery row (fan-out, the statement's transaction time) and delivery
 * row → arrival (claim, the host's queue, the request), p50/p99 each.
 */
async function breakdown(server: BenchServer, accountId: number, seen: Map<string, number>): Promise<void> {
  const rows = await server.db.query<{ id: string; fact: number; fanned: number }>(
    `SELECT e.id::text AS id, (extract(epoch FROM e.created_at) * 1000)::float8 AS fact,
            (extract(epoch FROM d.created_at) * 1000)::float8 AS fanned
       FROM notification_events e JOIN notification_deliveries d ON d.event_id = e.id AND d.kind = 'webhook'
      WHERE e.event_type = 'sale.paid' AND e.account_id = $1`,
    [accountId],
  );
  const fanOut: number[] = [];
  const send: number[] = [];
  const first = Math.min(...rows.map((r) => r.fact));
  const bySecond = new Map<number, number[]>();
  for (const r of rows) {
    const arrived = seen.get(r.id);
    if (arrived === undefined) continue;
    fanOut.push(r.fanned - r.fact);
    send.push(arrived - r.fanned);
    const second = Math.floor((r.fact - first) / 1000);
    bySecond.set(second, [...(bySecond.get(second) ?? []), arrived - r.fact]);
  }
  if (process.env.BENCH_E2E_SECONDS) {
    for (const [second, lags] of [...bySecond].sort((a, b) => a[0] - b[0])) {
      lags.sort((a, b) => a - b);
      console.log(
        `  second ${second}: ${lags.length} facts, p50 ${Math.round(pct(lags, 50))} ms, p99 ${Math.round(pct(lags, 99))} ms, max ${Math.round(lags[lags.length - 1]!)} ms`,
      );
    }
  }
  const show = (xs: number[]) => {
    xs.sort((a, b) => a - b);
    return `p50 ${Math.round(pct(xs, 50))} ms, p99 ${Math.round(pct(xs, 99))} ms`;
  };
  console.log(`  fact → fanned out: ${show(fanOut)}; fanned out → arrival: ${show(send)}`);
}

/**
 * Diagnostic, not the case: BENCH_E2E_SPLIT=1 runs the API (`serve --no-worker`) and the workers (`gateway
 * worker`) as two processes on the case's database, the topology README describes for scaling them apart.
 */
const SPLIT = Boolean(process.env.BENCH_E2E_SPLIT);
export const serverEnv = SPLIT ? { BENCH_WORKERS: '0' } : undefined;

function startWorkerProcess(server: BenchServer): ChildProcess {
  return spawn(process.execPath, ['dist/bundle/main.mjs', 'worker'], {
    env: { ...process.env, DATABASE_URL: server.databaseUrl, NODE_ENV: 'test', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
