import { verifyLedger } from '../../src/ledger/verify.js';
import type { Db } from '../../src/platform/db/db.js';
import { Recipients } from '../../src/recipients/index.js';
import { type BenchServer, benchMerchant, measureInterleaved, printRow } from '../lib.js';
import { seedSales, settleRequests, steadySeed } from './settlement.js';

const CONCURRENCY = 16;
const RECIPIENTS = 5;
/** Target rounds, each between two baseline rounds (the settlement of plain sales). */
const ROUNDS = Number(process.env.BENCH_SPLIT_ROUNDS ?? 5);
/** PENDENTE sales seeded per merchant: more than the rounds can settle, so every request settles one. */
const SALES = Number(process.env.BENCH_SPLIT_SALES ?? 40_000);

/**
 * PENDENTE sales of 100.00 (fee 1.00) split among the platform and its recipients: 10.00 to each recipient,
 * the rest (less the fee) to the platform; the same rows as seedSales otherwise.
 */
async function seedSplitSales(db: Db, accountId: number, n: number): Promise<number[]> {
  const recipients = new Recipients(db);
  const uuids: string[] = [];
  for (let i = 0; i < RECIPIENTS; i++) {
    const r = await recipients.create(accountId, {
      name: `Bench recipient ${i}`,
      document: '52998224725',
      email: `recipient-${i}@example.com`,
      pixKey: `recipient-${i}@example.com`,
      pixKeyType: 'EMAIL',
    });
    uuids.push(r.id);
  }
  const ids = (
    await db.query<{ id: string; uuid: string }>(
      'SELECT id, uuid FROM recipients WHERE uuid = ANY($1::uuid[])',
      [uuids],
    )
  ).sort((a, b) => uuids.indexOf(a.uuid) - uuids.indexOf(b.uuid));
  const split = [
    ...uuids.map((u) => ({
      recipientId: u,
      amountCents: 1000,
      chargeFees: false,
      liable: false,
      netCents: 1000,
    })),
    { recipientId: null, chargeFees: true, liable: true, netCents: 10000 - 100 - RECIPIENTS * 1000 },
  ];
  const sales = await seedSales(db, accountId, n);
  await db.query(
    'UPDATE sales SET split = $2::json, split_recipients = $3::bigint[] WHERE id = ANY($1::bigint[])',
    [sales, JSON.stringify(split), ids.map((r) => Number(r.id))],
  );
  return sales;
}

/**
 * Settling a sale split among 5 recipients (sale → PAGO through the sandbox status route: one entry with the
 * platform's and every recipient's postings, their balance rows moved with the COMMIT) against settling a
 * plain sale, on one gateway, rounds alternated, concurrency 16, each merchant's own sales. Prints the cost
 * ratio: time per split settlement over a plain one's (goal: at most 1.3).
 */
export async function run(server: BenchServer): Promise<void> {
  const plain = await benchMerchant(server.db);
  const platform = await benchMerchant(server.db);
  const plainSales = [{ m: plain, ids: await seedSales(server.db, plain.accountId, SALES) }];
  const splitSales = [{ m: platform, ids: await seedSplitSales(server.db, platform.accountId, SALES) }];
  await steadySeed(server.db);
  const load = (requests: ReturnType<typeof settleRequests>) => ({
    url: server.url,
    requests,
    connections: CONCURRENCY,
  });
  const r = await measureInterleaved(
    load(settleRequests(plainSales)),
    load(settleRequests(splitSales)),
    ROUNDS,
  );
  console.log(`  rounds (target / baseline either side): ${r.ratios.map((x) => x.toFixed(3)).join(' ')}`);
  console.log(`  cost ratio (time per split settlement ÷ plain): ${(1 / r.ratio).toFixed(3)}  (goal <= 1.3)`);
  printRow({
    name: `sale split among ${RECIPIENTS} recipients → PAGO, concurrency ${CONCURRENCY} (POST /api/sandbox/sales/{id}/status)`,
    unit: 'settlements',
    target: r.target,
    baselineName: `a plain sale → PAGO, same route and concurrency; ${ROUNDS} target rounds alternated with ${ROUNDS + 1} of it; ratio = median of each round against the two around it`,
    baseline: r.baseline,
    ratio: r.ratio,
    goal: 1 / 1.3,
  });
  const report = await verifyLedger(server.db);
  console.log(`  ledger verify: ${report.ok ? 'clean' : JSON.stringify(report.problems.slice(0, 5))}`);
}
