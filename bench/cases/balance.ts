import { type BenchServer, benchMerchant, measureAround, printRow } from '../lib.js';

/** GET /api/public/balance with valid keys vs a route running one SELECT 1 on the same pool. */
export async function run(server: BenchServer): Promise<void> {
  const merchant = await benchMerchant(server.db);
  const { target, baseline } = await measureAround(
    { url: `${server.url}/bench/select1` },
    { url: `${server.url}/api/public/balance`, headers: merchant.keys },
  );
  printRow({
    name: 'GET /api/public/balance',
    target,
    baselineName: 'GET /bench/select1 (SELECT 1), mean of before and after',
    baseline,
    goal: 0.7,
  });
}
