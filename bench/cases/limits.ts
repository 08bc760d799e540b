import { randomBytes } from 'node:crypto';
import {
  type BenchServer,
  fundedMerchant,
  type LoadOptions,
  measureInterleaved,
  printRow,
  startBenchServer,
} from '../lib.js';

/**
 * Target rounds per route (each between two baseline rounds): the difference measured is a few per cent and
 * one round swings by ±5 % on these machines, so the median of 9 is steadier than of 5.
 */
const ROUNDS = Number(process.env.BENCH_LIMITS_ROUNDS ?? 9);

/**
 * Issue 12's number: the balance and cashout routes with the per-key rate limiter on (counting every request,
 * limit never reached) vs off (the suite's gateway, limits off), two gateways on their own databases, same run.
 * Request ids are on in both: they cannot be turned off (decisions.md: every response carries one).
 */
export async function run(): Promise<void> {
  // two fresh gateways started alike (the suite's own had served other cases: an A/A run against it read
  // 1.09–1.14). diagnostics: BENCH_LIMITS_AA=1 leaves the limiter off on both (what the setup gives)
  const off = await startBenchServer({ RATE_LIMIT_PER_KEY: '0' });
  const on = await startBenchServer({ RATE_LIMIT_PER_KEY: process.env.BENCH_LIMITS_AA ? '0' : '1000000' });
  try {
    const [keysOn, keysOff] = [(await fundedMerchant(on.db)).keys, (await fundedMerchant(off.db)).keys];
    const balance = (s: BenchServer, keys: Record<string, string>): LoadOptions => ({
      url: `${s.url}/api/public/balance`,
      headers: keys,
    });
    const r1 = await measureInterleaved(balance(off, keysOff), balance(on, keysOn), ROUNDS);
    printRounds(r1.ratios);
    printRow({
      name: 'GET /api/public/balance, rate limiter on',
      target: r1.target,
      baselineName: `the same with RATE_LIMIT_PER_KEY=0; ${ROUNDS} target rounds alternated with ${ROUNDS + 1} of it; ratio = median of each round against the two around it`,
      baseline: r1.baseline,
      ratio: r1.ratio,
      goal: 0.95,
    });
    const r2 = await measureInterleaved(cashout(off, keysOff), cashout(on, keysOn), ROUNDS);
    printRounds(r2.ratios);
    printRow({
      name: 'POST /api/public/cashout, rate limiter on',
      target: r2.target,
      baselineName: `the same with RATE_LIMIT_PER_KEY=0; ${ROUNDS} target rounds alternated with ${ROUNDS + 1} of it; ratio = median of each round against the two around it`,
      baseline: r2.baseline,
      ratio: r2.ratio,
      goal: 0.95,
    });
  } finally {
    await on.stop();
    await off.stop();
  }
}

function printRounds(ratios: number[]): void {
  console.log(`  rounds (target / baseline either side): ${ratios.map((r) => r.toFixed(2)).join(' ')}`);
}

function cashout(server: BenchServer, keys: Record<string, string>): LoadOptions {
  const prefix = randomBytes(4).toString('hex');
  let n = 0;
  return {
    url: server.url,
    requests: [
      {
        method: 'POST',
        path: '/api/public/cashout',
        headers: { ...keys, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 100, pixKey: '52998224725' }),
        setupRequest: (req) => ({
          ...req,
          headers: { ...req.headers, 'idempotency-key': `bench-${prefix}-${n++}` },
        }),
      },
    ],
  };
}
