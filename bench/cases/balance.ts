import { type BenchServer, benchMerchant, measureAround, printRow, startBareServer } from '../lib.js';

/**
 * GET /api/public/balance with valid keys vs the bare baseline: a Fastify 5 app in its own process,
 * logger off, one pg Pool of 10, GET /select1 (bench/bare-server.ts).
 */
export async function run(server: BenchServer): Promise<void> {
  const merchant = await benchMerchant(server.db);
  const bare = await startBareServer(server);
  try {
    const { target, baseline } = await measureAround(
      { url: `${bare.url}/select1` },
      { url: `${server.url}/api/public/balance`, headers: merchant.keys },
    );
    printRow({
      name: 'GET /api/public/balance',
      target,
      baselineName:
        'bare Fastify 5 process, logger off, pg Pool of 10: GET /select1 (SELECT 1), mean of before and after',
      baseline,
      goal: 0.75,
    });
  } finally {
    await bare.stop();
  }
}
