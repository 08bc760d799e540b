import autocannon from 'autocannon';
import { toSaoPaulo } from '../../src/platform/time/sao-paulo.js';
import {
  type BenchServer,
  cpuSeconds,
  DURATION,
  fundedMerchant,
  type LoadOptions,
  recordedCosts,
  startBareServer,
  WARMUP,
} from '../lib.js';
import { cashoutRequests, payoutBacklog } from './cashout.js';

/**
 * CPU per request, which moves far less with a shared machine's load than requests per second do: for each
 * route, the CPU the gateway process and the PostgreSQL backends serving it (those connected to the bench's
 * database, from pg_stat_activity; /proc) spent over a load, divided by the requests answered, beside the
 * same for its baseline in the same run: reads against the bare process's `SELECT 1` (bench/bare-server.ts),
 * writes against the raw one-row transaction (`POST /bench/tx` in the gateway's process). The boleto row is a
 * boleto issued and then its PDF fetched (its one render), one after the other; the card row is an
 * authorization and capture at the sandbox acquirer (in the gateway's process), each with a token made
 * beforehand, not counted.
 */
export const CUSTOMER = {
  name: 'Bench Buyer',
  email: 'buyer@example.com',
  document: '52998224725',
  phone: '5511987654321',
  address: {
    street: 'Rua A',
    number: '1',
    district: 'Centro',
    city: 'São Paulo',
    state: 'SP',
    zipCode: '01001000',
  },
};
export const ITEMS = [{ title: 'Item', unitPrice: 10000, quantity: 1, tangible: false }];
/**
 * The sandbox's payouts do not complete by themselves during the run: each completion is the payout provider's
 * callback, a request of its own (the settlement and e2e cases measure those), and the timer completes at most
 * 100 a second, so the cashout row's thousands would be completed through the rows after it and charged to them.
 */
export const serverEnv = { SANDBOX_CASHOUT_DELAY_MS: '86400000' };
/** Writes run at this concurrency (the reads at 50): the rows that make a sale each, not a queue of them. */
const WRITERS = 16;

interface Cost {
  name: string;
  requests: number;
  reqPerSec: number;
  /** CPU milliseconds per request: the serving process, PostgreSQL's backends. */
  server: number;
  postgres: number;
  failed: number;
}

export async function run(server: BenchServer): Promise<void> {
  const merchant = await fundedMerchant(server.db);
  const keys = merchant.keys;
  const json = { ...keys, 'content-type': 'application/json' };
  const bare = await startBareServer(server);
  const backends = async () =>
    (
      await server.db.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      )
    ).map((r) => r.pid);
  /** CPU seconds so far of each backend of the bench's database, by pid. */
  const backendCpu = async () => {
    const cpu = new Map<number, number>();
    for (const pid of await backends()) {
      try {
        cpu.set(pid, cpuSeconds(pid));
      } catch {
        // ended meanwhile
      }
    }
    return cpu;
  };
  /** What the backends spent between two readings: those that ended meanwhile are lost, new ones count whole. */
  const spent = (before: Map<number, number>, after: Map<number, number>) =>
    [...after].reduce((sum, [pid, cpu]) => sum + cpu - (before.get(pid) ?? 0), 0);

  /** `work` run for DURATION seconds (after WARMUP) by `load`; CPU per answered request of `pid` and PostgreSQL. */
  async function measured(
    name: string,
    pid: number,
    load: (seconds: number) => Promise<{ ok: number; failed: number }>,
  ) {
    if (WARMUP > 0) await load(WARMUP);
    const p0 = await backendCpu();
    const s0 = cpuSeconds(pid);
    const t0 = performance.now();
    const { ok, failed } = await load(DURATION);
    const seconds = (performance.now() - t0) / 1000;
    const s1 = cpuSeconds(pid);
    const p1 = await backendCpu();
    const cost: Cost = {
      name,
      requests: ok,
      reqPerSec: ok / seconds,
      server: ((s1 - s0) * 1000) / Math.max(ok, 1),
      postgres: (spent(p0, p1) * 1000) / Math.max(ok, 1),
      failed,
    };
    return cost;
  }
  const cannon =
    (options: LoadOptions, connections = 50) =>
    async (seconds: number) => {
      const r = await autocannon({ ...options, connections, duration: seconds });
      return { ok: r['2xx'], failed: r.non2xx + r.errors };
    };

  // the lookup's sales: 20,000 of the merchant's, 2,000 of them asked for at random, cycled
  await server.db.query(
    `INSERT INTO sales (uuid, account_id, status, amount, system_fee, net_amount, reserve_amount, payment_method,
        customer, items, shipping, pix_key, installments, processor, external_transaction_id, created_at, completed_at)
     SELECT gen_random_uuid(), $1, 'PAGO', 1000 + g, 100, 900 + g, 0, 'PIX',
        '{"name":"Bench Buyer","email":"buyer@example.com","document":"52998224725","phone":"5511987654321"}',
        ('[{"id":' || g || ',"title":"Item ' || g || '","unitPrice":' || (1000 + g) || ',"quantity":1,"tangible":false}]')::json,
        NULL, '00020126580014br.gov.bcb.pix', NULL, 'bench', 'cost_' || g, now(), now()
       FROM generate_series(1, 20000) g`,
    [merchant.accountId],
  );
  await server.db.query('ANALYZE sales');
  const uuids = (
    await server.db.query<{ uuid: string }>(
      'SELECT uuid FROM sales WHERE account_id = $1 ORDER BY random() LIMIT 2000',
      [merchant.accountId],
    )
  ).map((r) => r.uuid);

  const rows: { cost: Cost; baseline: 'read' | 'write' }[] = [];
  const baselines: Record<'read' | 'write' | 'ceiling', Cost[]> = { read: [], write: [], ceiling: [] };
  try {
    const select1 = () =>
      measured('bare process: GET /select1 (SELECT 1)', bare.pid, cannon({ url: `${bare.url}/select1` }));
    // the HTTP layer's own floor: a bare route that touches no database
    const noDatabase = () =>
      measured('bare process: GET /json (no database)', bare.pid, cannon({ url: `${bare.url}/json` }));
    baselines.ceiling.push(await noDatabase());
    const rawTx = () =>
      measured(
        'raw one-row transaction: POST /bench/tx',
        server.pid,
        cannon({ url: `${server.url}/bench/tx`, method: 'POST' }, WRITERS),
      );
    baselines.read.push(await select1());
    rows.push({
      cost: await measured(
        'GET /api/public/balance',
        server.pid,
        cannon({ url: `${server.url}/api/public/balance`, headers: keys }),
      ),
      baseline: 'read',
    });
    rows.push({
      cost: await measured(
        'GET /api/transactions/{uuid}',
        server.pid,
        cannon({
          url: `${server.url}/api/transactions/${uuids[0]}`,
          headers: keys,
          requests: uuids.map((uuid) => ({ method: 'GET' as const, path: `/api/transactions/${uuid}` })),
        }),
      ),
      baseline: 'read',
    });
    baselines.read.push(await select1());
    baselines.ceiling.push(await noDatabase());
    baselines.write.push(await rawTx());
    rows.push({
      cost: await measured(
        'POST /api/public/cashout',
        server.pid,
        cannon({ url: server.url, requests: cashoutRequests(merchant) }, WRITERS),
      ),
      baseline: 'write',
    });
    // the payouts the cashouts left go out before the next row, which would otherwise pay for them
    console.log(await payoutBacklog(server, merchant.accountId));
    rows.push({
      cost: await measured(
        'POST /api/transactions PIX',
        server.pid,
        cannon(
          {
            url: `${server.url}/api/transactions`,
            method: 'POST',
            headers: json,
            body: JSON.stringify({ amount: 10000, paymentMethod: 'PIX', customer: CUSTOMER, items: ITEMS }),
          },
          WRITERS,
        ),
      ),
      baseline: 'write',
    });
    const boletoBody = JSON.stringify({
      amount: 10000,
      paymentMethod: 'BOLETO',
      customer: CUSTOMER,
      items: ITEMS,
      boleto: { dueDate: dueDate(), finePercent: '2.00', monthlyInterestPercent: '1.00' },
    });
    // the boletos issued, whose PDFs are then fetched once each (their first render: later ones are cached)
    const pdfPaths: string[] = [];
    rows.push({
      cost: await measured(
        'POST /api/transactions BOLETO (without its PDF)',
        server.pid,
        cannon(
          {
            url: server.url,
            requests: [
              {
                method: 'POST',
                path: '/api/transactions',
                headers: json,
                body: boletoBody,
                onResponse: (status: number, body: string) => {
                  if (status !== 201) return;
                  const sale = JSON.parse(body) as { boleto?: { pdfUrl: string } };
                  if (sale.boleto) pdfPaths.push(new URL(sale.boleto.pdfUrl).pathname);
                },
              },
            ],
          },
          WRITERS,
        ),
      ),
      baseline: 'write',
    });
    let nextPdf = 0;
    rows.push({
      cost: await measured("GET a boleto's PDF, its first render", server.pid, async (seconds) => {
        const until = performance.now() + seconds * 1000;
        let ok = 0;
        let failed = 0;
        await Promise.all(
          Array.from({ length: WRITERS }, async () => {
            while (performance.now() < until && nextPdf < pdfPaths.length) {
              const pdf = await fetch(`${server.url}${pdfPaths[nextPdf++]}`);
              await pdf.arrayBuffer();
              if (pdf.status === 200) ok++;
              else failed++;
            }
          }),
        );
        return { ok, failed };
      }),
      baseline: 'write',
    });
    if (nextPdf >= pdfPaths.length)
      console.log('  (every boleto issued had its PDF rendered before the time was up)');
    const tokens = await cardTokens(
      server.url,
      keys['x-api-public-key']!,
      Math.ceil((WARMUP + DURATION) * 400),
    );
    let next = 0;
    rows.push({
      cost: await measured(
        'POST /api/transactions CREDIT_CARD (sandbox acquirer)',
        server.pid,
        cannon(
          {
            url: server.url,
            requests: [
              {
                method: 'POST',
                path: '/api/transactions',
                headers: json,
                setupRequest: (req) => ({
                  ...req,
                  body: JSON.stringify({
                    amount: 10000,
                    paymentMethod: 'CREDIT_CARD',
                    customer: CUSTOMER,
                    items: ITEMS,
                    installments: 1,
                    card: { token: tokens[next++ % tokens.length] },
                  }),
                }),
              },
            ],
          },
          WRITERS,
        ),
      ),
      baseline: 'write',
    });
    if (next > tokens.length) console.log(`  (${next - tokens.length} card requests reused a spent token)`);
    baselines.write.push(await rawTx());
  } finally {
    await bare.stop();
  }

  /** A baseline measured before and after its routes: the mean of the two. */
  const mean = (cs: Cost[]): Cost => {
    const avg = (f: (c: Cost) => number) => cs.reduce((a, c) => a + f(c), 0) / cs.length;
    return {
      name: `${cs[0]!.name}, mean of before and after`,
      requests: avg((c) => c.requests),
      reqPerSec: avg((c) => c.reqPerSec),
      server: avg((c) => c.server),
      postgres: avg((c) => c.postgres),
      failed: cs.reduce((a, c) => a + c.failed, 0),
    };
  };
  const base = { read: mean(baselines.read), write: mean(baselines.write) };
  const ceiling = mean(baselines.ceiling);
  console.log(
    '\nCPU per request (ms): the serving process + the PostgreSQL backends serving it; ratio of the total to its baseline (lower is cheaper)',
  );
  const ms = (x: number) => x.toFixed(3).padStart(7);
  console.log(
    `  ${'route'.padEnd(72)} ${'req/s'.padStart(7)} ${'server'.padStart(7)} ${'pg'.padStart(7)} ${'total'.padStart(7)}  ratio`,
  );
  const line = (cost: Cost, ratio: string) =>
    console.log(
      `  ${cost.name.padEnd(72)} ${cost.reqPerSec.toFixed(0).padStart(7)} ${ms(cost.server)} ${ms(cost.postgres)} ${ms(cost.server + cost.postgres)}  ${ratio}${cost.failed ? `  (${cost.failed} failed)` : ''}`,
    );
  const keep = (cost: Cost, baseline: Cost | null, ceilingRatio?: number) => {
    const totalMs = cost.server + cost.postgres;
    recordedCosts.push({
      case: 'cost',
      name: cost.name,
      baselineName: baseline?.name ?? null,
      requests: cost.requests,
      reqPerSec: cost.reqPerSec,
      failed: cost.failed,
      serverMs: cost.server,
      postgresMs: cost.postgres,
      totalMs,
      ratio: baseline ? totalMs / (baseline.server + baseline.postgres) : null,
      ...(ceilingRatio === undefined ? {} : { ceilingRatio }),
    });
  };
  line(base.read, '(read baseline)');
  keep(base.read, null);
  line(ceiling, '(read ceiling)');
  keep(ceiling, null);
  line(base.write, '(write baseline)');
  keep(base.write, null);
  const total = (c: Cost) => c.server + c.postgres;
  for (const { cost, baseline } of rows) {
    const b = base[baseline];
    const toCeiling = baseline === 'read' ? total(cost) / total(ceiling) : undefined;
    line(
      cost,
      `${(total(cost) / total(b)).toFixed(2)} × ${baseline}` +
        (toCeiling === undefined ? '' : `, ${toCeiling.toFixed(2)} × ceiling`),
    );
    keep(cost, b, toCeiling);
  }
}

export function dueDate(): string {
  const today = toSaoPaulo(new Date()).slice(0, 10);
  return new Date(Date.parse(`${today}T00:00:00Z`) + 3 * 86_400_000).toISOString().slice(0, 10);
}

/** `count` single-use card tokens of an approved test card (POST /api/cards/tokens, 50 at a time). */
export async function cardTokens(url: string, publicKey: string, count: number): Promise<string[]> {
  const tokens: string[] = [];
  while (tokens.length < count) {
    const batch = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const res = await fetch(`${url}/api/cards/tokens`, {
          method: 'POST',
          headers: { 'x-api-public-key': publicKey, 'content-type': 'application/json' },
          body: JSON.stringify({
            number: '4111111111111111',
            holderName: 'BENCH BUYER',
            expMonth: 12,
            expYear: 2035,
            cvv: '123',
          }),
        });
        if (res.status !== 201) throw new Error(`tokenizing answered ${res.status}: ${await res.text()}`);
        return ((await res.json()) as { token: string }).token;
      }),
    );
    tokens.push(...batch);
  }
  return tokens;
}
