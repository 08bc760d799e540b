import autocannon from 'autocannon';
import { Agent, request } from 'undici';
import type { Db } from '../../src/platform/db/db.js';
import { recordNotifications } from '../../src/webhooks/outbox.js';
import {
  type BenchMerchant,
  type BenchServer,
  benchMerchant,
  DURATION,
  measureAround,
  peakRssMb,
  printRow,
  recorded,
  startBareServer,
} from '../lib.js';
import { seedSales, settleRequests, steadySeed } from './settlement.js';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 200);
const MERCHANTS = 20;
const FACTS_PER_SECOND = Number(process.env.BENCH_FACT_RATE ?? 1000);

/**
 * The Events API: a page of GET /api/events against the bare SELECT 1 process (goal 0.75), then STREAMS open
 * streams on the gateway while sales are settled at FACTS_PER_SECOND (each a sale.paid fact): fact committed →
 * arrival on every stream of its account (p99 goal < 100 ms), the gateway's peak memory (goal < 300 MB), and
 * every stream checked for a missing, repeated or out-of-order event.
 */
export async function run(server: BenchServer): Promise<void> {
  await pageCase(server);
  await streamCase(server);
}

async function pageCase(server: BenchServer): Promise<void> {
  const merchant = await benchMerchant(server.db);
  await seedFacts(server.db, merchant.accountId, 2000);
  // as autovacuum would have by now: a just-filled table's statistics still say "a few rows"
  await server.db.query('ANALYZE notification_events');
  const bare = await startBareServer(server);
  try {
    const { target, baseline } = await measureAround(
      { url: `${bare.url}/select1` },
      { url: `${server.url}/api/events?limit=20`, headers: merchant.keys },
    );
    printRow({
      name: 'GET /api/events (a page of 20)',
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

async function seedFacts(db: Db, accountId: number, n: number): Promise<void> {
  for (let done = 0; done < n; done += 500) {
    const facts = Array.from({ length: Math.min(500, n - done) }, (_, i) => ({
      accountId,
      event: 'sale.paid' as const,
      subjectType: 'sale' as const,
      subjectId: done + i + 1,
      webhookBody: { id: done + i + 1, status: 'PAGO', amount: 10000, type: 'TRANSACTION' },
    }));
    await db.tx((tx) => recordNotifications(tx, facts));
  }
}

interface Arrival {
  id: string;
  at: number;
}

async function streamCase(server: BenchServer): Promise<void> {
  const merchants: { m: BenchMerchant; ids: number[] }[] = [];
  const perMerchant = Math.ceil((FACTS_PER_SECOND * (DURATION + 5)) / MERCHANTS);
  for (let i = 0; i < MERCHANTS; i++) {
    const m = await benchMerchant(server.db);
    merchants.push({ m, ids: await seedSales(server.db, m.accountId, perMerchant) });
  }
  await steadySeed(server.db);

  const agent = new Agent({ connections: STREAMS + 10 });
  const streams: { account: number; arrivals: Arrival[]; abort: AbortController }[] = [];
  for (let i = 0; i < STREAMS; i++) {
    const { m } = merchants[i % MERCHANTS]!;
    const abort = new AbortController();
    const arrivals: Arrival[] = [];
    const res = await request(`${server.url}/api/events/stream`, {
      headers: m.keys,
      signal: abort.signal,
      dispatcher: agent,
    });
    if (res.statusCode !== 200) throw new Error(`stream answered ${res.statusCode}`);
    let buffer = '';
    res.body.setEncoding('utf8');
    res.body.on('data', (chunk: string) => {
      const at = Date.now();
      buffer += chunk;
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const m = /^id: (.+)$/m.exec(buffer.slice(0, end));
        if (m) arrivals.push({ id: m[1]!, at });
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
      }
    });
    res.body.on('error', () => undefined);
    streams.push({ account: m.accountId, arrivals, abort });
  }

  const started = new Date();
  const load = await autocannon({
    url: server.url,
    connections: 16,
    overallRate: FACTS_PER_SECOND,
    duration: DURATION,
    requests: settleRequests(merchants),
  });
  await new Promise((resolve) => setTimeout(resolve, 2000)); // the last facts reach the streams
  for (const s of streams) s.abort.abort();
  await agent.close();

  const facts = await server.db.query<{ id: string; account_id: number; created_ms: string }>(
    `SELECT id, account_id, (extract(epoch FROM created_at) * 1000)::bigint::text AS created_ms
       FROM notification_events
      WHERE account_id = ANY ($1::bigint[]) AND event_type = 'sale.paid' AND created_at >= $2
      ORDER BY txid, id`,
    [merchants.map((x) => x.m.accountId), started],
  );
  const byAccount = new Map<number, string[]>();
  const createdAt = new Map<string, number>();
  for (const f of facts) {
    byAccount.set(f.account_id, [...(byAccount.get(f.account_id) ?? []), f.id]);
    createdAt.set(f.id, Number(f.created_ms));
  }
  let wrong = 0;
  const lateness: number[] = [];
  for (const s of streams) {
    const expected = byAccount.get(s.account) ?? [];
    const got = s.arrivals.map((a) => a.id);
    if (got.length !== expected.length || got.some((id, i) => id !== expected[i])) wrong++;
    for (const a of s.arrivals) lateness.push(a.at - (createdAt.get(a.id) ?? a.at));
  }
  lateness.sort((a, b) => a - b);
  const pct = (p: number) => lateness[Math.min(lateness.length - 1, Math.floor(p * lateness.length))] ?? 0;
  const rssMb = peakRssMb(server.pid);
  const p99 = pct(0.99);
  console.log(`\n${STREAMS} event streams while sales settle at ${FACTS_PER_SECOND}/s`);
  console.log(
    `  facts    ${facts.length} sale.paid in ${DURATION} s (${(load.requests.average ?? 0).toFixed(0)} settlements/s, non-2xx ${load.non2xx})`,
  );
  console.log(
    `  arrivals ${lateness.length} on ${STREAMS} streams; fact → arrival p50 ${pct(0.5)} ms  p99 ${p99} ms  max ${pct(1)} ms  (goal p99 < 100 ms)`,
  );
  console.log(`  streams with a missing, repeated or out-of-order event: ${wrong} (goal 0)`);
  console.log(`  gateway peak RSS ${rssMb} MB (goal < 300 MB)`);
  const ok = p99 < 100 && wrong === 0 && (rssMb ?? 0) < 300;
  recorded.push({
    case: 'events',
    name: `${STREAMS} event streams at ${FACTS_PER_SECOND} facts/s: 100 ms ÷ fact → arrival p99`,
    target: { reqPerSec: lateness.length / DURATION, p99, non2xx: load.non2xx, errors: wrong },
    baselineName: 'the goal: p99 of 100 ms, no event missing or out of order, peak RSS under 300 MB',
    baseline: { reqPerSec: lateness.length / DURATION, p99: 100, non2xx: 0, errors: 0 },
    goal: 1,
    ratio: 100 / Math.max(p99, 1),
    verdict: ok ? 'OK' : 'BELOW GOAL',
    rssMb,
  });
}
