import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { type BenchServer, benchMerchant, CONNECTIONS, type Measurement, measure, printRow } from '../lib.js';

/**
 * Reconciliation of a window of 100,000 received Pix (local PSP, 1,000 a page) while the gateway serves balance
 * reads. The window is three days old (out of the scheduled runs' way); 99 % of its Pix were credited by their
 * webhooks and 1 % were lost, so the run reads every page and credits 1,000 sales through the webhook's path.
 * Measured: the run's time (goal: under 60 s), GET /api/public/balance during it against before and after
 * it (goal ≥ 0.8), and the gateway's resident memory through the run (flat: one page held at a time).
 */
const PIX = Number(process.env.BENCH_RECONCILE_PIX ?? 100_000);
const LOST_EVERY = 100;

const SPAN_MS = 2 * 3600_000;
const WINDOW_START = new Date(Math.floor(Date.now() / 3600_000) * 3600_000 - 3 * 86_400_000);

// the PSP in a process of its own, as a PSP is another machine (bench/reconcile-psp.ts)
const psp = spawn(
  process.execPath,
  ['--import', 'tsx', path.join(import.meta.dirname, '../reconcile-psp.ts')],
  {
    env: {
      ...process.env,
      BENCH_PSP_PIX: String(PIX),
      BENCH_PSP_START: WINDOW_START.toISOString(),
      BENCH_PSP_SPAN_MS: String(SPAN_MS),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
const [line] = (await once(createInterface({ input: psp.stdout! }), 'line')) as [string];
export const serverEnv = JSON.parse(line.replace(/^BENCH_PSP /, '')) as Record<string, string>;

/** The window's sales (bcb charges) and what the webhooks credited, one INSERT … SELECT each. */
async function fill(server: BenchServer, accountId: number, start: Date, spanMs: number): Promise<void> {
  const step = `${spanMs / PIX} milliseconds`;
  await server.db.query(
    `INSERT INTO sales (uuid, account_id, status, amount, system_fee, net_amount, reserve_amount, payment_method,
                        customer, items, processor, external_transaction_id, created_at, updated_at)
     SELECT gen_random_uuid(), $1, CASE WHEN i % $3 = 0 THEN 'PENDENTE' ELSE 'PAGO' END, 1000 + i % 5000, 0,
            1000 + i % 5000, 0, 'PIX',
            json_build_object('name', 'Cliente ' || i, 'email', 'cliente' || i || '@example.com',
                              'document', lpad(i::text, 11, '0')),
            '[]'::json, 'bcb', 'BENCHRECON' || lpad(i::text, 10, '0'), $2::timestamptz, $2::timestamptz
       FROM generate_series(1, $4::int) i`,
    [accountId, start, LOST_EVERY, PIX],
  );
  await server.db.query(
    `INSERT INTO bcb_received_pix (e2eid, txid, amount, sale_id, credited, paid_at)
     SELECT 'E99999999202611220000' || lpad(i::text, 11, '0'), s.external_transaction_id, s.amount, s.id, true,
            $1::timestamptz + i * $4::interval
       FROM generate_series(1, $3::int) i
       JOIN sales s ON s.processor = 'bcb' AND s.external_transaction_id = 'BENCHRECON' || lpad(i::text, 10, '0')
      WHERE i % $2 <> 0`,
    [start, LOST_EVERY, PIX, step],
  );
  await server.db.query('ANALYZE sales');
  await server.db.query('ANALYZE bcb_received_pix');
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : 0;
}

export async function run(server: BenchServer): Promise<void> {
  try {
    const merchant = await benchMerchant(server.db);
    const spanMs = SPAN_MS;
    const start = WINDOW_START;
    await fill(server, merchant.accountId, start, spanMs);
    const balance = { url: `${server.url}/api/public/balance`, headers: merchant.keys };
    const before = await measure(balance);

    // balance reads for as long as the reconciliation runs
    const samples: number[] = [rssMb(server.pid)];
    const sampler = setInterval(() => samples.push(rssMb(server.pid)), 250);
    let finished: (result: autocannon.Result) => void = () => undefined;
    const done = new Promise<autocannon.Result>((resolve) => {
      finished = resolve;
    });
    const load = autocannon({ ...balance, connections: CONNECTIONS, duration: 3600 }, (_err, result) =>
      finished(result),
    );
    const began = performance.now();
    const res = await fetch(`${server.url}/bench/reconcile`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        from: start.toISOString(),
        to: new Date(start.getTime() + spanMs + 1).toISOString(),
      }),
    });
    const seconds = (performance.now() - began) / 1000;
    load.stop();
    const during = await done;
    clearInterval(sampler);
    const report = (await res.json()) as { received: number; matched: number; creditedNow: number };
    if (res.status !== 200 || report.received !== PIX || report.creditedNow !== PIX / LOST_EVERY) {
      throw new Error(`reconciliation answered ${res.status}: ${JSON.stringify(report).slice(0, 500)}`);
    }
    const after = await measure(balance);
    const unloaded: Measurement = {
      reqPerSec: (before.reqPerSec + after.reqPerSec) / 2,
      p99: Math.max(before.p99, after.p99),
      non2xx: before.non2xx + after.non2xx,
      errors: before.errors + after.errors,
    };
    const loaded: Measurement = {
      reqPerSec: during.requests.average,
      p99: during.latency.p99,
      non2xx: during.non2xx,
      errors: during.errors,
    };
    printRow({
      name: `GET /api/public/balance while ${PIX.toLocaleString('en')} received Pix are reconciled`,
      target: loaded,
      baselineName: 'the same reads without reconciliation, mean of before and after',
      baseline: unloaded,
      goal: 0.8,
    });
    const at = (share: number) => samples[Math.min(samples.length - 1, Math.floor(samples.length * share))]!;
    console.log(
      `  reconciliation: ${seconds.toFixed(1)} s for ${report.received} Pix (${report.creditedNow} credited now), ` +
        `${Math.round(report.received / seconds)} Pix/s; gateway RSS ${samples[0]} MB before, then at 10/25/50/75/100 % ` +
        `of the run ${[0.1, 0.25, 0.5, 0.75, 1].map(at).join('/')} MB, ${Math.max(...samples)} MB at most`,
    );
    printRow({
      name: `reconciliation of ${PIX.toLocaleString('en')} received Pix, 1,000 a page (under 60 s)`,
      target: { reqPerSec: report.received / seconds, p99: 0, non2xx: 0, errors: 0 },
      baselineName: `${PIX.toLocaleString('en')} Pix in 60 s`,
      baseline: { reqPerSec: PIX / 60, p99: 0, non2xx: 0, errors: 0 },
      goal: 1,
      unit: 'Pix',
    });
  } finally {
    psp.kill('SIGTERM');
    await once(psp, 'exit');
  }
}
