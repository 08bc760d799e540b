import { Agent, request } from 'undici';
import { type BenchServer, benchMerchant, measureAround, peakRssMb, printRow, recorded } from '../lib.js';

const PAGES = Number(process.env.BENCH_CHECKOUT_PAGES ?? 200);
/** Payments a second while the pages wait: each one confirmed on its own page. */
const PAYMENTS_PER_SECOND = Number(process.env.BENCH_CHECKOUT_PAY_RATE ?? 50);
const PAYER = { name: 'Bench Payer', email: 'payer@example.com', document: '52998224725' };

/** The payer's limits are per address, and every page of the bench comes from one. */
export const serverEnv = { RATE_LIMIT_CHECKOUT_PER_IP: '0', CHECKOUT_STREAMS_PER_IP: '0' };

/**
 * The hosted checkout page: loads per second of `/pay/<slug>` (the link read, its uses counted, the page
 * rendered with its data) with its assets cached, then with its script and stylesheet too, both against
 * GET /health in the same run; and with PAGES pages waiting on their sale's stream at once, the time from a
 * payment (the sandbox's status request sent) to that page's `paid` event, p99, against the contract's 2 s.
 */
export async function run(server: BenchServer): Promise<void> {
  const merchant = await benchMerchant(server.db);
  const created = await fetch(`${server.url}/api/payment-links`, {
    method: 'POST',
    headers: { ...merchant.keys, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Curso de fotografia', amountCents: 19900, methods: ['PIX'] }),
  });
  if (created.status !== 201) throw new Error(`link creation answered ${created.status}`);
  const { slug } = (await created.json()) as { slug: string };
  const pagePath = `/pay/${slug}`;
  const html = await (await fetch(`${server.url}${pagePath}`)).text();
  const assets = [...html.matchAll(/(?:src|href)="(\/checkout-page\/assets\/[^"]+)"/g)].map((m) => m[1]!);
  if (assets.length !== 2) throw new Error(`expected a script and a stylesheet, found ${assets.join(', ')}`);

  const health = { url: `${server.url}/health` };
  const cached = await measureAround(health, { url: `${server.url}${pagePath}` });
  printRow({
    name: 'GET /pay/{slug}: a page load with its assets cached (the HTML with the link’s data)',
    target: cached.target,
    baselineName: 'GET /health (SELECT 1), mean of before and after',
    baseline: cached.baseline,
    goal: 0.5,
  });

  // a first visit: the page, then its script and stylesheet (autocannon sends them in turn on each connection)
  const first = await measureAround(health, {
    url: server.url,
    requests: [pagePath, ...assets].map((path) => ({ method: 'GET' as const, path })),
  });
  const perLoad = 1 + assets.length;
  printRow({
    name: `GET /pay/{slug} + script + stylesheet: first page loads (${perLoad} requests each)`,
    target: { ...first.target, reqPerSec: first.target.reqPerSec / perLoad },
    baselineName: 'GET /health (SELECT 1), mean of before and after',
    baseline: first.baseline,
    goal: 0.25,
    unit: 'page loads',
  });

  await confirmationCase(server, merchant.keys, slug);
}

interface Page {
  saleId: string;
  paidAt: number | null;
  confirmedAt: number | null;
  abort: AbortController;
}

async function confirmationCase(server: BenchServer, keys: Record<string, string>, slug: string) {
  const pages: Page[] = [];
  for (let i = 0; i < PAGES; i++) {
    const res = await fetch(`${server.url}/api/public/pay/${slug}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(PAYER),
    });
    if (res.status !== 201) throw new Error(`paying the link answered ${res.status}`);
    const { saleId } = (await res.json()) as { saleId: string };
    pages.push({ saleId, paidAt: null, confirmedAt: null, abort: new AbortController() });
  }

  const agent = new Agent({ connections: PAGES + 10 });
  await Promise.all(
    pages.map(async (page) => {
      const res = await request(`${server.url}/api/public/pay/${slug}/sales/${page.saleId}/events`, {
        signal: page.abort.signal,
        dispatcher: agent,
      });
      if (res.statusCode !== 200) throw new Error(`a page's stream answered ${res.statusCode}`);
      res.body.setEncoding('utf8');
      res.body.on('data', (chunk: string) => {
        if (page.confirmedAt === null && chunk.includes('event: paid')) page.confirmedAt = Date.now();
      });
      res.body.on('error', () => undefined);
    }),
  );

  // every page open, the sales are paid one after the other at PAYMENTS_PER_SECOND
  const payments = new Agent({ connections: 16 });
  const settle: number[] = [];
  let failed = 0;
  const interval = 1000 / PAYMENTS_PER_SECOND;
  const started = Date.now();
  await Promise.all(
    pages.map(async (page, i) => {
      await new Promise((resolve) => setTimeout(resolve, started + i * interval - Date.now()));
      page.paidAt = Date.now();
      const res = await request(`${server.url}/api/sandbox/sales/${page.saleId}/status`, {
        method: 'POST',
        headers: { ...keys, 'content-type': 'application/json' },
        body: '{"status":"PAGO"}',
        dispatcher: payments,
      });
      await res.body.dump();
      if (res.statusCode !== 200) failed++;
      settle.push(Date.now() - page.paidAt);
    }),
  );
  const deadline = Date.now() + 5000;
  while (pages.some((p) => p.confirmedAt === null) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  for (const page of pages) page.abort.abort();
  await agent.close();
  await payments.close();

  const confirmed = pages.filter((p) => p.confirmedAt !== null && p.paidAt !== null);
  const waits = confirmed.map((p) => p.confirmedAt! - p.paidAt!).sort((a, b) => a - b);
  const pct = (list: number[], p: number) =>
    list[Math.min(list.length - 1, Math.floor(p * list.length))] ?? 0;
  settle.sort((a, b) => a - b);
  const p99 = pct(waits, 0.99);
  const missing = PAGES - confirmed.length;
  const rssMb = peakRssMb(server.pid);
  console.log(`\n${PAGES} checkout pages waiting on their sale's stream, paid at ${PAYMENTS_PER_SECOND}/s`);
  console.log(
    `  payment → "paid" on its page: p50 ${pct(waits, 0.5)} ms  p99 ${p99} ms  max ${pct(waits, 1)} ms  (goal p99 < 2000 ms)`,
  );
  console.log(
    `  the payment request itself (sandbox status → PAGO): p50 ${pct(settle, 0.5)} ms  p99 ${pct(settle, 0.99)} ms`,
  );
  console.log(`  pages never told: ${missing}; payments refused: ${failed} (goal 0)`);
  const ok = p99 < 2000 && missing === 0 && failed === 0;
  recorded.push({
    case: 'checkout',
    name: `${PAGES} checkout pages open: 2000 ms ÷ payment → page's confirmation p99`,
    target: { reqPerSec: PAYMENTS_PER_SECOND, p99, non2xx: failed, errors: missing },
    baselineName: 'the contract: "Pagamento confirmado" within 2 s of the credit, on every page',
    baseline: { reqPerSec: PAYMENTS_PER_SECOND, p99: 2000, non2xx: 0, errors: 0 },
    goal: 1,
    ratio: 2000 / Math.max(p99, 1),
    verdict: ok ? 'OK' : 'BELOW GOAL',
    rssMb,
  });
}
