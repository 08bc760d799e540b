import autocannon from 'autocannon';
import { type BenchServer, DURATION, fundedMerchant, type Measurement, printRow, WARMUP } from '../lib.js';
import { CUSTOMER, cardTokens, dueDate, ITEMS } from './cost.js';

/**
 * A shop's Black Friday: BENCH_BURST_RATE charges a second (default 2,000) offered for BENCH_BURST_SECONDS
 * (default 60; 3 × DURATION with BENCH_QUICK) to one gateway process, mixed as sales are — 70 % PIX, 20 %
 * card (each with a token made beforehand, not counted), 10 % boleto — at a fixed offered rate (autocannon's
 * overallRate, 400 connections), while a merchant reads its balance 20 times a second. Two rows: the balance
 * read's p99 during the burst against the same read at rest just before (the goal: under 2 ×, so rest ÷ burst
 * ≥ 0.5), and the charges answered 2xx per second against the rate offered (the rest refused 503 by the
 * gateway while its event loop is busy: CHARGE_SHED_UTILIZATION, BENCH_SHED here).
 */
const RATE = Number(process.env.BENCH_BURST_RATE ?? 2000);
/** The gateway sheds charges past this share of a busy event loop (CHARGE_SHED_UTILIZATION; 0: off). */
export const serverEnv = {
  CHARGE_SHED_UTILIZATION: process.env.BENCH_SHED ?? '0.8',
  // the burst's 400 connections and the reads' 4 come from one address: past the per-address cap (256) they
  // would be refused at connect, which is not what is measured
  HTTP_MAX_CONNECTIONS_PER_IP: '1000',
};
const SECONDS = Number(process.env.BENCH_BURST_SECONDS ?? (process.env.BENCH_QUICK ? 3 * DURATION : 60));

export async function run(server: BenchServer): Promise<void> {
  const merchant = await fundedMerchant(server.db);
  const json = { ...merchant.keys, 'content-type': 'application/json' };
  const tokens = await cardTokens(
    server.url,
    merchant.keys['x-api-public-key']!,
    Math.ceil(RATE * SECONDS * 0.22),
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
  const reads = (seconds: number) =>
    autocannon({
      url: `${server.url}/api/public/balance`,
      headers: merchant.keys,
      connections: 4,
      overallRate: 20,
      duration: seconds,
    });
  const measurement = (r: autocannon.Result): Measurement => ({
    reqPerSec: r.requests.average,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
  });
  if (WARMUP > 0) await reads(WARMUP);
  const rest = await reads(Math.min(SECONDS, 20));
  const [burst, during] = await Promise.all([
    autocannon({
      url: server.url,
      connections: 400,
      overallRate: RATE,
      duration: SECONDS,
      timeout: 30,
      requests: [
        {
          method: 'POST',
          path: '/api/transactions',
          headers: json,
          setupRequest: (req) => ({ ...req, body: body() }),
        },
      ],
    }),
    reads(SECONDS),
  ]);
  const sustained = burst['2xx'] / SECONDS;
  console.log(
    `\ncharges offered ${RATE}/s for ${SECONDS} s (70 % PIX, 20 % card, 10 % boleto): ${sustained.toFixed(0)}/s answered 2xx` +
      ` (${burst['2xx']} in all; non-2xx ${burst.non2xx}, errors ${burst.errors}, timeouts ${burst.timeouts}); charge p99 ${burst.latency.p99} ms`,
  );
  if (next > tokens.length) console.log(`  (${next - tokens.length} card requests reused a spent token)`);
  printRow({
    name: `GET /api/public/balance p99 during ${RATE} charges/s offered (ratio: p99 at rest ÷ p99 during)`,
    target: measurement(during),
    baselineName: 'the same read at rest, just before',
    baseline: measurement(rest),
    goal: 0.5,
    ratio: rest.latency.p99 / Math.max(during.latency.p99, 1),
  });
  printRow({
    name: 'charges answered 2xx per second, against the rate offered',
    target: { reqPerSec: sustained, p99: burst.latency.p99, non2xx: burst.non2xx, errors: burst.errors },
    baselineName: `${RATE} charges/s offered (70 % PIX, 20 % card, 10 % boleto)`,
    baseline: { reqPerSec: RATE, p99: 0, non2xx: 0, errors: 0 },
    goal: 0.95,
    unit: 'charges',
  });
}
