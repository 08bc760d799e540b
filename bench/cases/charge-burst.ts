import { availableParallelism } from 'node:os';
import { setTimeout } from 'node:timers/promises';
import {
  type BenchServer,
  cpuSnapshot,
  DURATION,
  fundedMerchant,
  offerEvenly,
  type ProbeSample,
  percentile,
  printRow,
  probeApart,
  probeMeasurement,
  WARMUP,
} from '../lib.js';
import { CUSTOMER, cardTokens, dueDate, ITEMS } from './cost.js';

/**
 * A shop's Black Friday: BENCH_BURST_RATE charges a second (default 2,000) offered for BENCH_BURST_SECONDS
 * (default 60; 3 × DURATION with BENCH_QUICK) to one gateway process, mixed as sales are — 70 % PIX, 20 %
 * card (each with a token made beforehand, not counted), 10 % boleto — at a fixed offered rate, each charge
 * sent at its own time (offerEvenly, up to 400 connections), while a merchant reads its balance 20 times a
 * second, timed on a thread of its own (probeApart), after the shop's ordinary trade (BENCH_BURST_TRADE). Two
 * rows: the balance read's p99 during the burst against the same read at rest just before (the goal: under
 * 2 ×, so rest ÷ burst ≥ 0.5), and the charges answered 2xx per second against the rate offered (the rest
 * refused 503 by the gateway while its event loop is busy: CHARGE_SHED_UTILIZATION, BENCH_SHED here); then the
 * CPU each side used during the burst.
 */
const sortedMs = (samples: ProbeSample[]) => samples.map((r) => r.ms).sort((a, b) => a - b);

const RATE = Number(process.env.BENCH_BURST_RATE ?? 2000);
/** The gateway sheds charges past this share of a busy event loop (CHARGE_SHED_UTILIZATION; 0: off). */
export const serverEnv = {
  CHARGE_SHED_UTILIZATION: process.env.BENCH_SHED ?? '0.8',
  // the burst's 400 connections and the reads' 4 come from one address: past the per-address cap (256) they
  // would be refused at connect, which is not what is measured
  HTTP_MAX_CONNECTIONS_PER_IP: '1000',
};
const SECONDS = Number(process.env.BENCH_BURST_SECONDS ?? (process.env.BENCH_QUICK ? 3 * DURATION : 60));
/**
 * The shop's ordinary trade before its burst: BENCH_BURST_TRADE charges a second (default 100, the same mix) for
 * TRADE_SECONDS, before the reads at rest are timed. A process that has opened no charge yet runs their code
 * unoptimized, and 2,000 a second of it held the loop for its first seconds (0: none, a process new to charges).
 */
const TRADE_RATE = Number(process.env.BENCH_BURST_TRADE ?? 100);
const TRADE_SECONDS = 10;

/** BENCH_BURST_PER_SECOND=1: the reads of each second of the burst, their slowest and their median. */
function printPerSecond(during: ProbeSample[], burstFrom: number): void {
  for (let second = 0; second * 1000 < (during.at(-1)?.at ?? 0) - burstFrom + 1; second++) {
    const ms = sortedMs(during.filter((r) => Math.floor((r.at - burstFrom) / 1000) === second));
    console.log(
      `  second ${second}: ${ms.length} reads, slowest ${ms.at(-1)?.toFixed(1)} ms, median ${percentile(ms, 50).toFixed(1)}`,
    );
  }
}

export async function run(server: BenchServer): Promise<void> {
  const merchant = await fundedMerchant(server.db);
  const json = { ...merchant.keys, 'content-type': 'application/json' };
  const tokens = await cardTokens(
    server.url,
    merchant.keys['x-api-public-key']!,
    Math.ceil((RATE * SECONDS + TRADE_RATE * TRADE_SECONDS) * 0.22),
  );
  const pix = JSON.stringify({ amount: 10000, paymentMethod: 'PIX', customer: CUSTOMER, items: ITEMS });
  const boleto = JSON.stringify({
    amount: 10000,
    paymentMethod: 'BOLETO',
    customer: CUSTOMER,
    items: ITEMS,
    boleto: { dueDate: dueDate() },
  });
  let next = 0;
  let drawn = 0;
  const body = () => {
    const r = (drawn++ * 0.6180339887) % 1; // an even spread of the mix, request after request
    if (r < 0.7) return pix;
    if (r < 0.9) {
      return JSON.stringify({
        amount: 10000,
        paymentMethod: 'CREDIT_CARD',
        customer: CUSTOMER,
        items: ITEMS,
        installments: 1,
        card: { token: tokens[next++ % tokens.length] },
      });
    }
    return boleto;
  };
  const offer = (rate: number, seconds: number) =>
    offerEvenly({
      url: `${server.url}/api/transactions`,
      method: 'POST',
      headers: json,
      body,
      rate,
      seconds,
      connections: 400,
    });
  if (TRADE_RATE > 0) {
    const trade = await offer(TRADE_RATE, TRADE_SECONDS);
    console.log(
      `the ordinary trade before the burst: ${TRADE_RATE} charges/s for ${TRADE_SECONDS} s, ${trade.answers['2xx'] ?? 0} answered 2xx`,
    );
  }
  // One probe from before the burst to its end, timed on a thread of its own (the burst's generator keeps this
  // process's event loop busy), its connections kept alive throughout, as a merchant's server reading its
  // balance keeps them: warm-up (not counted), then at rest, then during the burst.
  const restSeconds = Math.min(SECONDS, 20);
  const restFrom = WARMUP * 1000;
  const burstFrom = restFrom + restSeconds * 1000;
  const probe = probeApart({
    url: `${server.url}/api/public/balance`,
    headers: merchant.keys,
    rate: 20,
    seconds: WARMUP + restSeconds + SECONDS,
  });
  await probe.started;
  await setTimeout(burstFrom);
  const cpuBefore = cpuSnapshot(server.pid);
  const burst = await offer(RATE, SECONDS);
  const cpuAfter = cpuSnapshot(server.pid);
  const samples = await probe.samples;
  const rest = samples.filter((r) => r.at >= restFrom && r.at < burstFrom);
  const during = samples.filter((r) => r.at >= burstFrom);
  if (process.env.BENCH_BURST_PER_SECOND) printPerSecond(during, burstFrom);
  const cores = (k: 'gateway' | 'bench' | 'postgres') => ((cpuAfter[k] - cpuBefore[k]) / SECONDS).toFixed(2);
  const answered = burst.answers['2xx'] ?? 0;
  const refused = Object.entries(burst.answers)
    .filter(([kind]) => kind !== '2xx')
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ');
  const sustained = answered / SECONDS;
  console.log(
    `\ncharges offered ${RATE}/s for ${SECONDS} s (70 % PIX, 20 % card, 10 % boleto): ${sustained.toFixed(0)}/s answered 2xx` +
      ` (${answered} in all; the others ${refused || 'none'}); the 2xx charges' p99 ${burst.p99.toFixed(0)} ms`,
  );
  console.log(
    `  CPU during the burst, in cores of ${availableParallelism()}: the gateway ${cores('gateway')}, PostgreSQL ${cores('postgres')}, the load generator and the probe ${cores('bench')}`,
  );
  if (next > tokens.length) console.log(`  (${next - tokens.length} card requests reused a spent token)`);
  printRow({
    name: `GET /api/public/balance p99 during ${RATE} charges/s offered (ratio: p99 at rest ÷ p99 during)`,
    target: probeMeasurement(during, SECONDS),
    baselineName: 'the same read at rest, just before',
    baseline: probeMeasurement(rest, restSeconds),
    goal: 0.5,
    ratio: percentile(sortedMs(rest), 99) / Math.max(percentile(sortedMs(during), 99), 1),
  });
  printRow({
    name: 'charges answered 2xx per second, against the rate offered',
    target: {
      reqPerSec: sustained,
      p99: Math.round(burst.p99),
      non2xx: RATE * SECONDS - answered - (burst.answers.error ?? 0),
      errors: burst.answers.error ?? 0,
    },
    baselineName: `${RATE} charges/s offered (70 % PIX, 20 % card, 10 % boleto)`,
    baseline: { reqPerSec: RATE, p99: 0, non2xx: 0, errors: 0 },
    goal: 0.95,
    unit: 'charges',
  });
}
