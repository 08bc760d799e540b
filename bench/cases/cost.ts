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
 * database, from pg_stat_activity; /proc) spent over a load, divided by the requests answered, in rounds
 * alternated with its baseline's: reads against the bare process's `SELECT 1` (bench/bare-server.ts), writes
 * against the raw one-row transaction (`POST /bench/tx` in the gateway's process). The boleto rows are boletos
 * issued, then the PDFs of those boletos fetched once each (their first render); the card row is an
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

/** Card tokens made beforehand per second of the card's load (each request uses one). */
const CARD_TOKENS_PER_SECOND = 2000;

/** Rounds each route is measured in, alternated with its baseline's (BENCH_COST_ROUNDS). */
const ROUNDS = Number(process.env.BENCH_COST_ROUNDS ?? 3);

/**
 * BENCH_COST_ROUTES: some of the routes only (a comma list of balance, lookup, cashout, pix, boleto, pdf, card),
 * each still alternated with its baseline, for a change measured against the code before it in a few minutes.
 */
const ONLY = process.env.BENCH_COST_ROUTES?.split(',').map((r) => r.trim());
const wanted = (route: string) => !ONLY || ONLY.includes(route);

/** What one load spent: its answers, its seconds, the CPU seconds of the serving process and of PostgreSQL. */
interface Spent {
  ok: number;
  failed: number;
  seconds: number;
  server: number;
  postgres: number;
}

/** CPU milliseconds per answered request of one load. */
const perRequest = (s: Spent) => ((s.server + s.postgres) * 1000) / Math.max(s.ok, 1);

/** Loads taken together: their CPU per answered request. */
function costOf(name: string, loads: Spent[]): Cost {
  const sum = (f: (s: Spent) => number) => loads.reduce((a, s) => a + f(s), 0);
  const ok = Math.max(
    sum((s) => s.ok),
    1,
  );
  return {
    name,
    requests: sum((s) => s.ok),
    reqPerSec:
      sum((s) => s.ok) /
      Math.max(
        sum((s) => s.seconds),
        1e-9,
      ),
    server: (sum((s) => s.server) * 1000) / ok,
    postgres: (sum((s) => s.postgres) * 1000) / ok,
    failed: sum((s) => s.failed),
  };
}

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

  type Load = (seconds: number) => Promise<{ ok: number; failed: number }>;
  /** One load of `seconds`, no warm-up: the answers and the CPU seconds `pid` and the database's backends spent. */
  async function once(pid: number, load: Load, seconds: number): Promise<Spent> {
    const p0 = await backendCpu();
    const s0 = cpuSeconds(pid);
    const t0 = performance.now();
    const { ok, failed } = await load(seconds);
    const elapsed = (performance.now() - t0) / 1000;
    const s1 = cpuSeconds(pid);
    const p1 = await backendCpu();
    return { ok, failed, seconds: elapsed, server: s1 - s0, postgres: spent(p0, p1) };
  }
  /** `work` run for DURATION seconds (after WARMUP) by `load`; CPU per answered request of `pid` and PostgreSQL. */
  async function measured(pid: number, load: Load): Promise<Spent> {
    if (WARMUP > 0) await load(WARMUP);
    return once(pid, load, DURATION);
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

  const rows: { cost: Cost; baseline: 'read' | 'write'; ratio: number; ratios: number[] }[] = [];
  const baselines: Record<'read' | 'write', Spent[]> = { read: [], write: [] };
  const ceilings: Spent[] = [];
  const baselineOf = {
    read: {
      name: 'bare process: GET /select1 (SELECT 1)',
      pid: bare.pid,
      load: cannon({ url: `${bare.url}/select1` }),
    },
    write: {
      name: 'raw one-row transaction: POST /bench/tx',
      pid: server.pid,
      load: cannon({ url: `${server.url}/bench/tx`, method: 'POST' }, WRITERS),
    },
  };
  /**
   * A route measured in ROUNDS rounds, each between two rounds of its baseline (B T B T … B; the machine's load
   * drifts within a run, and a baseline measured minutes away from its route drifted with it): its ratio is the
   * median over its rounds of the round's CPU per request against the mean of the two baseline rounds beside it.
   */
  async function alternated(name: string, pid: number, load: Load, kind: 'read' | 'write') {
    const b = baselineOf[kind];
    const seconds = DURATION / ROUNDS;
    if (WARMUP > 0) {
      await b.load(1);
      await load(WARMUP);
    }
    const before = [await once(b.pid, b.load, seconds)];
    const target: Spent[] = [];
    const ratios: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const t = await once(pid, load, seconds);
      const after = await once(b.pid, b.load, seconds);
      if (t.ok >= 10) {
        const beside = costOf(b.name, [before[before.length - 1]!, after]);
        ratios.push(perRequest(t) / (beside.server + beside.postgres));
        target.push(t);
      }
      before.push(after);
    }
    baselines[kind].push(...before);
    ratios.sort((x, y) => x - y);
    rows.push({
      cost: costOf(name, target),
      baseline: kind,
      ratio: ratios[ratios.length >> 1] ?? Number.NaN,
      ratios,
    });
  }
  try {
    // the HTTP layer's own floor: a bare route that touches no database
    const noDatabase = () => measured(bare.pid, cannon({ url: `${bare.url}/json` }));
    const reads = wanted('balance') || wanted('lookup');
    if (reads) ceilings.push(await noDatabase());
    if (wanted('balance'))
      await alternated(
        'GET /api/public/balance',
        server.pid,
        cannon({ url: `${server.url}/api/public/balance`, headers: keys }),
        'read',
      );
    if (wanted('lookup'))
      await alternated(
        'GET /api/transactions/{uuid}',
        server.pid,
        cannon({
          url: `${server.url}/api/transactions/${uuids[0]}`,
          headers: keys,
          requests: uuids.map((uuid) => ({ method: 'GET' as const, path: `/api/transactions/${uuid}` })),
        }),
        'read',
      );
    if (reads) ceilings.push(await noDatabase());
    if (wanted('cashout'))
      await alternated(
        'POST /api/public/cashout',
        server.pid,
        cannon({ url: server.url, requests: cashoutRequests(merchant) }, WRITERS),
        'write',
      );
    // the payouts the cashouts left go out before the next row, which would otherwise pay for them
    if (wanted('cashout')) console.log(await payoutBacklog(server, merchant.accountId));
    if (wanted('pix'))
      await alternated(
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
        'write',
      );
    const boletoBody = JSON.stringify({
      amount: 10000,
      paymentMethod: 'BOLETO',
      customer: CUSTOMER,
      items: ITEMS,
      boleto: { dueDate: dueDate(), finePercent: '2.00', monthlyInterestPercent: '1.00' },
    });
    // the boletos issued, whose PDFs are then fetched once each (their first render: later ones are cached)
    const pdfPaths: string[] = [];
    if (wanted('boleto') || wanted('pdf'))
      await alternated(
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
        'write',
      );
    let nextPdf = 0;
    if (wanted('pdf'))
      await alternated(
        "GET a boleto's PDF, its first render",
        server.pid,
        async (seconds) => {
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
        },
        'write',
      );
    if (wanted('pdf') && nextPdf >= pdfPaths.length)
      console.log('  (every boleto issued had its PDF rendered before the time was up)');
    // more than the route answers in its time (on a fast machine it ran out of them at 800 a second: the last
    // round's spent tokens answered 400, and its CPU per answered request rose with them)
    const tokens = wanted('card')
      ? await cardTokens(
          server.url,
          keys['x-api-public-key']!,
          Math.ceil((WARMUP + DURATION) * CARD_TOKENS_PER_SECOND),
        )
      : [];
    let next = 0;
    if (wanted('card'))
      await alternated(
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
        'write',
      );
    if (next > tokens.length) console.log(`  (${next - tokens.length} card requests reused a spent token)`);
  } finally {
    await bare.stop();
  }

  const base = {
    read: costOf(`${baselineOf.read.name}, its rounds beside the reads`, baselines.read),
    write: costOf(`${baselineOf.write.name}, its rounds beside the writes`, baselines.write),
  };
  const ceiling = costOf('bare process: GET /json (no database), before and after the reads', ceilings);
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
  const keep = (
    cost: Cost,
    baseline: Cost | null,
    ratio: number | null,
    rounds?: number[],
    ceilingRatio?: number,
  ) => {
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
      ratio,
      ...(rounds ? { roundRatios: rounds } : {}),
      ...(ceilingRatio === undefined ? {} : { ceilingRatio }),
    });
  };
  if (baselines.read.length > 0) {
    line(base.read, '(read baseline)');
    keep(base.read, null, null);
  }
  if (ceilings.length > 0) {
    line(ceiling, '(read ceiling)');
    keep(ceiling, null, null);
  }
  if (baselines.write.length > 0) {
    line(base.write, '(write baseline)');
    keep(base.write, null, null);
  }
  const total = (c: Cost) => c.server + c.postgres;
  for (const { cost, baseline, ratio, ratios } of rows) {
    const toCeiling = baseline === 'read' ? total(cost) / total(ceiling) : undefined;
    line(
      cost,
      `${ratio.toFixed(2)} × ${baseline} (rounds ${ratios.map((r) => r.toFixed(2)).join(', ')})` +
        (toCeiling === undefined ? '' : `, ${toCeiling.toFixed(2)} × ceiling`),
    );
    keep(cost, base[baseline], ratio, ratios, toCeiling);
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
