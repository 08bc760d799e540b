import type autocannon from 'autocannon';
import { verifyLedger } from '../../src/ledger/verify.js';
import type { Db } from '../../src/platform/db/db.js';
import { type BenchMerchant, type BenchServer, benchMerchant, measureAround, printRow } from '../lib.js';

/** The concurrency for one merchant's settlements (a large merchant's peak of paid PIX). */
const CONCURRENCY = 16;
const MERCHANTS = 64;
/** PENDENTE sales seeded per merchant: more than the measured runs can settle, so every request settles one. */
const SALES_ONE = Number(process.env.BENCH_SETTLE_SALES ?? 60_000);
const SALES_EACH = Math.ceil(SALES_ONE / 8);

export async function seedSales(db: Db, accountId: number, n: number): Promise<number[]> {
  const rows = await db.query<{ id: number }>(
    `INSERT INTO sales (uuid, account_id, status, amount, system_fee, net_amount, reserve_amount, payment_method,
        customer, items, pix_key, processor, external_transaction_id)
     SELECT gen_random_uuid(), $1, 'PENDENTE', 10000, 100, 9900, 0, 'PIX',
        '{"name":"Bench Buyer","email":"buyer@example.com","document":"52998224725","phone":"5511987654321"}',
        '[{"id":1,"title":"Item","unitPrice":10000,"quantity":1,"tangible":false}]',
        '00020126580014br.gov.bcb.pix', 'sandbox', 'bench_' || $1::bigint || '_' || g
       FROM generate_series(1, $2::int) g
     RETURNING id`,
    [accountId, n],
  );
  return rows.map((r) => r.id);
}

/**
 * After a bulk seed: vacuumed and analysed, and its WAL checkpointed, so that neither the seed's first-touch
 * hint bits nor a checkpoint forced by its WAL (hundreds of MB for the settlement case) lands in a
 * measurement. (One full run read 268 settlements/s, p99 758 ms, against 1,100–1,700/s in every other; the
 * cause was not caught, and a checkpoint forced by the seed's WAL is the likeliest.)
 */
export async function steadySeed(db: Db): Promise<void> {
  await db.query('VACUUM (ANALYZE) sales');
  await db.query('CHECKPOINT');
}

/** Requests that each move the next unused sale of the next merchant (round robin) to PAGO. */
export function settleRequests(merchants: { m: BenchMerchant; ids: number[] }[]): autocannon.Request[] {
  let turn = 0;
  const next = merchants.map(() => 0);
  return [
    {
      method: 'POST' as const,
      path: '/',
      body: '{"status":"PAGO"}',
      setupRequest: (req: autocannon.Request) => {
        const k = turn++ % merchants.length;
        const { m, ids } = merchants[k]!;
        const id = ids[next[k]!++ % ids.length];
        return {
          ...req,
          path: `/api/sandbox/sales/${id}/status`,
          headers: { ...m.keys, 'content-type': 'application/json' },
        };
      },
    },
  ];
}

/**
 * Sale → PAGO through the sandbox status route (what a processor callback runs), at concurrency 16: one
 * merchant vs the raw one-row transaction (UPDATE the balance row + INSERT one row), then 64 merchants vs the
 * raw transaction spread over 64 rows. Every request settles a distinct PENDENTE sale (one ledger entry,
 * one balance change, one notification fact).
 */
export async function run(server: BenchServer): Promise<void> {
  const one = await benchMerchant(server.db);
  const single = [{ m: one, ids: await seedSales(server.db, one.accountId, SALES_ONE) }];
  const many = await Promise.all(
    Array.from({ length: MERCHANTS }, async () => {
      const m = await benchMerchant(server.db);
      return { m, ids: await seedSales(server.db, m.accountId, SALES_EACH) };
    }),
  );
  await steadySeed(server.db);

  const oneMerchant = await measureAround(
    { url: `${server.url}/bench/tx`, method: 'POST', connections: CONCURRENCY },
    { url: server.url, requests: settleRequests(single), connections: CONCURRENCY },
  );
  printRow({
    name: `sale → PAGO, one merchant, concurrency ${CONCURRENCY} (POST /api/sandbox/sales/{id}/status)`,
    unit: 'settlements',
    ...oneMerchant,
    baselineName: 'POST /bench/tx (UPDATE one balance row + INSERT one row), mean of before and after',
    goal: 2,
  });

  // diagnostics: BENCH_SETTLE_ONE=1 measures the one-merchant row only (e.g. under --cpu-prof)
  if (process.env.BENCH_SETTLE_ONE) return;
  const spread = await measureAround(
    { url: `${server.url}/bench/tx-spread`, method: 'POST', connections: CONCURRENCY },
    { url: server.url, requests: settleRequests(many), connections: CONCURRENCY },
  );
  printRow({
    name: `sale → PAGO, ${MERCHANTS} merchants round robin, concurrency ${CONCURRENCY}`,
    unit: 'settlements',
    ...spread,
    baselineName: 'POST /bench/tx-spread (the raw transaction on one of 64 rows), mean of before and after',
    goal: 1.5,
  });

  const paid = await server.db.query<{ account_id: number; n: number }>(
    "SELECT account_id, count(*)::int AS n FROM sales WHERE status = 'PAGO' GROUP BY account_id",
  );
  const report = await verifyLedger(server.db);
  const settled = paid.reduce((acc, r) => acc + r.n, 0);
  console.log(
    `  settled ${settled} sales; ledger verify: ${report.ok ? 'clean' : JSON.stringify(report.problems)}`,
  );
  const seeded = new Map([...single, ...many].map(({ m, ids }) => [m.accountId, ids.length]));
  if (paid.some((r) => r.n >= (seeded.get(r.account_id) ?? Number.POSITIVE_INFINITY))) {
    console.log(
      '  (a merchant ran out of PENDENTE sales and requests repeated settled ones: raise BENCH_SETTLE_SALES)',
    );
  }
}
