import { assignFeePlan, createFeePlan } from '../../src/accounts/index.js';
import { type BenchServer, benchMerchant, type LoadOptions, measureInterleaved, printRow } from '../lib.js';

/** Target rounds (each between two baseline rounds): a difference of a few per cent needs the median of many. */
const ROUNDS = Number(process.env.BENCH_FEES_ROUNDS ?? 9);

const SALE = JSON.stringify({
  amount: 10000,
  paymentMethod: 'PIX',
  customer: {
    name: 'Bench Buyer',
    email: 'buyer@example.com',
    document: '52998224725',
    phone: '5511987654321',
  },
  items: [{ title: 'Curso online', unitPrice: 10000, quantity: 1, tangible: false }],
});

/**
 * Sale creation (POST /api/sandbox/sales: the fee computed and stored with the sale) by a merchant on a fee
 * plan against the same by a merchant priced by its own columns (today's path: the same one statement, whose
 * join finds no plan), on one gateway, rounds alternated. Prints the cost ratio: the planned merchant's time
 * per sale over the other's (goal: at most 1.05).
 */
export async function run(server: BenchServer): Promise<void> {
  const own = await benchMerchant(server.db);
  const planned = await benchMerchant(server.db);
  const plan = await createFeePlan(server.db, {
    name: 'Bench plan',
    pixPercent: '0.99',
    pixFixedCents: 10,
    boletoFixedCents: 349,
    creditPercent: { '1': '3.49', '2-6': '4.29', '7-12': '4.99' },
    debitPercent: '1.99',
    anticipationMonthlyPercent: '2.99',
    cashoutFixedCents: 150,
  });
  await server.db.tx((tx) => assignFeePlan(tx, planned.accountId, plan.id));
  const create = (keys: Record<string, string>): LoadOptions => ({
    url: `${server.url}/api/sandbox/sales`,
    method: 'POST',
    headers: { ...keys, 'content-type': 'application/json' },
    body: SALE,
    connections: 16,
  });
  const r = await measureInterleaved(create(own.keys), create(planned.keys), ROUNDS);
  console.log(`  rounds (target / baseline either side): ${r.ratios.map((x) => x.toFixed(3)).join(' ')}`);
  console.log(
    `  cost ratio (time per sale with a plan ÷ without): ${(1 / r.ratio).toFixed(3)}  (goal <= 1.05)`,
  );
  printRow({
    name: 'POST /api/sandbox/sales by a merchant on a fee plan',
    target: r.target,
    baselineName: `the same by a merchant priced by its own columns; ${ROUNDS} target rounds alternated with ${ROUNDS + 1} of it; ratio = median of each round against the two around it`,
    baseline: r.baseline,
    ratio: r.ratio,
    goal: 1 / 1.05,
  });
}
