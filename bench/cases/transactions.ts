import { type BenchServer, benchMerchant, measureAround, printRow, startBareServer } from '../lib.js';

const SALES = 100_000;
const LOOKUP_SET = 2_000;

/**
 * GET /api/transactions/{uuid} with 100,000 sales in the database (seeded in one INSERT … SELECT
 * generate_series), cycling through 2,000 of the merchant's uuids picked at random, vs the bare baseline
 * process (bench/bare-server.ts: Fastify 5, logger off, pg Pool of 10, GET /select1).
 */
export async function run(server: BenchServer): Promise<void> {
  const merchant = await benchMerchant(server.db);
  await server.db.query(
    `INSERT INTO sales (uuid, account_id, status, amount, system_fee, net_amount, reserve_amount, payment_method,
        customer, items, shipping, pix_key, installments, processor, external_transaction_id, created_at,
        completed_at)
     SELECT gen_random_uuid(), $1, 'PAGO', 1000 + g, 100, 900 + g, 0, 'PIX',
        '{"name":"Bench Buyer","email":"buyer@example.com","document":"52998224725","phone":"5511987654321"}',
        ('[{"id":' || g || ',"title":"Item ' || g || '","unitPrice":' || (1000 + g)
          || ',"quantity":1,"tangible":false}]')::json,
        NULL, '00020126580014br.gov.bcb.pix', NULL, 'bench', 'bench_' || g, now(), now()
       FROM generate_series(1, $2::int) g`,
    [merchant.accountId, SALES],
  );
  await server.db.query('ANALYZE sales');
  const uuids = (
    await server.db.query<{ uuid: string }>('SELECT uuid FROM sales ORDER BY random() LIMIT $1', [LOOKUP_SET])
  ).map((r) => r.uuid);

  const bare = await startBareServer(server);
  try {
    const { target, baseline } = await measureAround(
      { url: `${bare.url}/select1` },
      {
        url: `${server.url}/api/transactions/${uuids[0]}`,
        headers: merchant.keys,
        // A fixed set of random uuids, cycled by every connection: prebuilt requests cost the load generator
        // (which shares these cores) far less than a setupRequest per request.
        requests: uuids.map((uuid) => ({ method: 'GET' as const, path: `/api/transactions/${uuid}` })),
      },
    );
    printRow({
      name: `GET /api/transactions/{uuid} (${SALES.toLocaleString('en')} sales)`,
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
