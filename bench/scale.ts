/**
 * `npm run bench scale`: the gateway's hot paths on a database whose largest table (postings) holds
 * BENCH_SCALE_ROWS rows (100,000,000 by default) beside the same paths at BENCH_SCALE_BASE rows (1,000,000),
 * side by side in one run: balance, lookup, cashout, a sale's settlement, the panel's sales list and export,
 * the delivery claim; then a month of deliveries removed by retention (partition drop) and the dead tuples
 * autovacuum left. A run of its own (never part of the cases): the large database takes long to write and
 * much disk (both printed). Writes bench/scale-results.json.
 *
 * The history is written as the gateway writes it, in bulk with SQL (generate_series): 24 months of it,
 * month-coded ids in their monthly partitions (migrations 270, 271), in proportion to the postings (n):
 * journal entries n/4 (four postings each), sales n/10 (a tenth of them the measured merchant's, the rest
 * 200 other merchants'), withdrawals n/40, audit rows n/200, and notification history kept for three months
 * (facts, deliveries, attempts n/40 each, as a 90-day retention keeps) plus one month past the retention for
 * the drop. Sales keep their `public_json` trigger (the rows' JSON is the gateway's own); the daily totals'
 * trigger is off while the history is written (the panel's reports are not measured here).
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type autocannon from 'autocannon';
import { ensureMerchantLedger } from '../src/ledger/ledger.js';
import type { Db } from '../src/platform/db/db.js';
import { claimDue } from '../src/webhooks/deliveries.data.js';
import { pruneNotifications } from '../src/webhooks/retention.js';
import { cashoutRequests } from './cases/cashout.js';
import { seedSales, settleRequests } from './cases/settlement.js';
import {
  type BenchMerchant,
  type BenchServer,
  fundedMerchant,
  type LoadOptions,
  type Measurement,
  measureInterleaved,
  startBenchServer,
} from './lib.js';
import { gitCommit, machine } from './report.js';

const TARGET = Number(process.env.BENCH_SCALE_ROWS ?? 100_000_000);
const BASE = Number(process.env.BENCH_SCALE_BASE ?? 1_000_000);
const MONTHS = 24;
const MERCHANTS = 200;
const CONNECTIONS = 16;
/** Sales settled per scale: more than a measurement settles. */
const SETTLE_SALES = Number(process.env.BENCH_SCALE_SETTLE ?? 40_000);
const DUE_DELIVERIES = 20_000;
/** The first generated id's number within its month (after those the sequences had given). */
let firstId = 1;
/** A realistic fact body (~1 KB): the same for every generated fact. */
const BODY = JSON.stringify({
  id: 1,
  uuid: '00000000-0000-4000-8000-000000000000',
  status: 'PAGO',
  amount: '10000',
  paymentMethod: 'PIX',
  customerName: 'Cliente Exemplo da Silva',
  customerEmail: 'cliente@example.com',
  customerDocument: '52998224725',
  saleItems: [{ id: 1, title: 'Curso de programação — módulo 1', unitPrice: '10000', quantity: 1 }],
  pixKey: `00020126580014br.gov.bcb.pix0136${'a'.repeat(600)}`,
  eventType: 'sale.paid',
});

interface Prepared {
  rows: number;
  server: BenchServer;
  merchant: BenchMerchant;
  settle: number[];
  session: string;
  writeSeconds: number;
  databaseBytes: number;
  tables: Record<string, number>;
}

interface ScaleRun {
  rows: number;
  writeSeconds: number;
  databaseBytes: number;
  tables: Record<string, number>;
  claimMsPerDelivery: number;
  retention: { month: string; deliveries: number; seconds: number } | null;
  deadTuples: { table: string; live: number; dead: number; autovacuums: number }[];
}

/** A gateway on a fresh database holding `rows` postings' worth of history, vacuumed and analysed. */
async function prepare(rows: number): Promise<Prepared> {
  // the API alone (no workers): the claim is measured by the bench's own loop, nothing else claiming beside it
  const server = await startBenchServer({ LOG_LEVEL: 'warn', BENCH_WORKERS: '0' });
  const merchant = await fundedMerchant(server.db);
  const started = Date.now();
  await writeHistory(server.db, merchant.accountId, rows);
  const settle = await seedSales(server.db, merchant.accountId, SETTLE_SALES);
  await seedRefused(server.db, merchant.accountId);
  const writeSeconds = (Date.now() - started) / 1000;
  await server.db.query('VACUUM (ANALYZE)');
  await server.db.query('CHECKPOINT');
  const [size] = await server.db.query<{ bytes: number }>(
    'SELECT pg_database_size(current_database()) AS bytes',
  );
  console.log(
    `  ${rows.toLocaleString('en')} postings' worth of history written in ${writeSeconds.toFixed(0)} s, ` +
      `vacuumed in ${((Date.now() - started) / 1000 - writeSeconds).toFixed(0)} s: ${(size!.bytes / 2 ** 30).toFixed(2)} GiB`,
  );
  return {
    rows,
    server,
    merchant,
    settle,
    session: await panelSession(server, merchant.accountId),
    writeSeconds,
    databaseBytes: size!.bytes,
    tables: await tableRows(server.db),
  };
}

/** The paths measured, for one prepared gateway (the same requests at every scale). */
async function paths(p: Prepared): Promise<{ name: string; options: LoadOptions }[]> {
  const { server, merchant, session } = p;
  const list: { name: string; options: LoadOptions }[] = [
    {
      name: 'GET /api/public/balance',
      options: { url: `${server.url}/api/public/balance`, headers: merchant.keys },
    },
    {
      name: 'GET /api/transactions/{uuid} (any of the merchant’s)',
      options: { url: server.url, requests: await lookupRequests(server.db, merchant) },
    },
    { name: 'POST /api/public/cashout', options: { url: server.url, requests: cashoutRequests(merchant) } },
    {
      name: 'a sale settled (sandbox → PAGO)',
      options: { url: server.url, requests: settleRequests([{ m: merchant, ids: p.settle }]) },
    },
    {
      name: 'panel: GET /api/sales (first page of 50)',
      options: { url: `${server.url}/api/sales?limit=50`, headers: { cookie: session } },
    },
    {
      name: 'panel: GET /api/sales/export.csv (2,000 sales)',
      options: { url: `${server.url}/api/sales/export.csv?status=RECUSADO`, headers: { cookie: session } },
    },
  ];
  return list.map((one) => ({ ...one, options: { ...one.options, connections: CONNECTIONS } }));
}

/** What is measured once per scale, after the paths: the claim, the retention drop, the dead tuples. */
async function afterPaths(p: Prepared): Promise<ScaleRun> {
  const { db } = p.server;
  const claimMsPerDelivery = await measureClaim(db, p.merchant.accountId);
  console.log(
    `  ${p.rows.toLocaleString('en')}: delivery claim ${claimMsPerDelivery.toFixed(3)} ms per delivery claimed (batches of 100)`,
  );
  const retention = await measureRetention(db);
  return {
    rows: p.rows,
    writeSeconds: p.writeSeconds,
    databaseBytes: p.databaseBytes,
    tables: p.tables,
    claimMsPerDelivery,
    retention,
    deadTuples: [],
  };
}

/** The churning tables' dead tuples, and how many times autovacuum has passed on them. */
function deadTuples(db: Db): Promise<ScaleRun['deadTuples']> {
  return db.query<ScaleRun['deadTuples'][number]>(
    `SELECT relname AS table, n_live_tup AS live, n_dead_tup AS dead, autovacuum_count::int AS autovacuums
       FROM pg_stat_user_tables
      WHERE relname IN ('sales', 'withdrawals', 'ledger_accounts', 'cashout_idempotency', 'sale_idempotency',
                        'notification_outbox', 'webhooks')
         OR relname LIKE '%\\_p' || to_char(now() AT TIME ZONE 'UTC', 'YYYYMM')
      ORDER BY relname`,
  );
}

/** 24 months of history in proportion to `n` postings (see the file's comment). */
async function writeHistory(db: Db, merchantId: number, n: number): Promise<void> {
  const accounts = await db.query<{ id: number }>(
    `INSERT INTO accounts (name, email)
     SELECT 'Scale Merchant ' || g, 'scale-' || g || '-' || $2 || '@example.com' FROM generate_series(1, $1::int) g
     RETURNING id`,
    [MERCHANTS, randomBytes(4).toString('hex')],
  );
  for (const a of accounts) await ensureMerchantLedger(db, a.id);
  const others = accounts.map((a) => a.id);
  await db.query(
    `INSERT INTO webhooks (account_id, url, target_host, events, secret_enc, created_at, updated_at, enabled_at)
     SELECT id, 'https://receiver.example/hooks', 'receiver.example:443', ARRAY['*'], 'unused',
            now() - interval '25 months', now() - interval '25 months', now() - interval '25 months'
       FROM unnest($1::bigint[]) id`,
    [[...others, merchantId]],
  );
  const [cur] = await db.query<{ m: number; base: number }>(
    `SELECT partition_month(now()) AS m,
            (SELECT max(last_value) FROM pg_sequences
              WHERE sequencename IN ('journal_entries_id_seq', 'audit_log_id_seq', 'notification_deliveries_id_seq'))
            AS base`,
  );
  const now = cur!.m;
  // generated ids take the numbers after those the sequences gave so far, in every month
  firstId = Number(cur!.base ?? 0) + 1;
  await db.query(
    `SELECT month_partitions_ensure(t, $1, $2) FROM unnest(ARRAY['journal_entries', 'postings', 'audit_log']) t`,
    [now - MONTHS + 1, now],
  );
  await db.query('SELECT notification_partitions_ensure($1, $1)', [now - 4]);
  await db.query('SELECT notification_partitions_ensure($1, $2)', [now - 2, now]);
  const avail = await db.query<{ id: number }>(
    `SELECT id FROM ledger_accounts WHERE account_id = ANY ($1::bigint[]) AND bucket = 'available' ORDER BY id`,
    [others],
  );
  const [system] = await db.query<{ id: number }>(
    "SELECT id FROM ledger_accounts WHERE code = 'system:processor'",
  );
  const perMonth = (total: number) => Math.max(1, Math.floor(total / MONTHS));
  const entries = perMonth(n / 4);
  const sales = perMonth(n / 10);
  const withdrawals = perMonth(n / 40);
  const audits = perMonth(n / 200);
  const facts = Math.max(1, Math.floor(n / 40 / 3));
  // a month's instants: spread over it, never past now
  const at = (g: string, count: number) =>
    `partition_month_start(m) + ((${g} - 1)::float8 / ${count}) * (least(partition_month_start(m + 1), now()) - partition_month_start(m))`;
  await db.query('ALTER TABLE sales DISABLE TRIGGER sales_daily_totals_keep');
  for (let m = now - MONTHS + 1; m <= now; m++) {
    await db.tx(async (tx) => {
      await tx.query(
        `INSERT INTO journal_entries (id, kind, ref_type, ref_id, created_at)
         SELECT (m::bigint << 40) + $3 + g, 'sale.paid', 'sale', g, ${at('g', entries)}
           FROM (SELECT $1::int AS m) x, generate_series(1, $2::int) g`,
        [m, entries, firstId],
      );
      await tx.query(
        `INSERT INTO postings (entry_id, ledger_account_id, amount)
         SELECT (m::bigint << 40) + $5 + g,
                CASE k WHEN 2 THEN a.ids[1 + g % array_length(a.ids, 1)] ELSE $3::bigint END,
                CASE k WHEN 1 THEN -10000 WHEN 2 THEN 9800 ELSE 100 END
           FROM (SELECT $1::int AS m) x, (SELECT $4::bigint[] AS ids) a, generate_series(1, $2::int) g,
                generate_series(1, 4) k`,
        [m, entries, system!.id, avail.map((r) => r.id), firstId],
      );
      await tx.query(
        `INSERT INTO sales (uuid, account_id, status, amount, system_fee, net_amount, reserve_amount, payment_method,
            customer, items, pix_key, processor, external_transaction_id, created_at, updated_at, completed_at)
         SELECT gen_random_uuid(), CASE WHEN g % 10 = 0 THEN $3::bigint ELSE o.ids[1 + g % array_length(o.ids, 1)] END,
                'PAGO', 10000, 100, 9900, 0, 'PIX',
                '{"name":"Cliente Exemplo","email":"cliente@example.com","document":"52998224725","phone":"5511987654321"}',
                '[{"id":1,"title":"Item","unitPrice":10000,"quantity":1,"tangible":false}]',
                '00020126580014br.gov.bcb.pix', 'sandbox', 'scale_' || m || '_' || g, t, t, t
           FROM (SELECT $1::int AS m) x, (SELECT $4::bigint[] AS ids) o, generate_series(1, $2::int) g,
                LATERAL (SELECT ${at('g', sales)} AS t) tt`,
        [m, sales, merchantId, others],
      );
      await tx.query(
        `INSERT INTO withdrawals (uuid, account_id, amount, fee_fixed, fee_variable, net_amount, pix_key, pix_key_type,
            status, created_at, updated_at, processed_at)
         SELECT gen_random_uuid(), o.ids[1 + g % array_length(o.ids, 1)], 10000, 100, 0, 9900, '52998224725', 'CPF',
                'COMPLETED', t, t, t
           FROM (SELECT $1::int AS m) x, (SELECT $3::bigint[] AS ids) o, generate_series(1, $2::int) g,
                LATERAL (SELECT ${at('g', withdrawals)} AS t) tt`,
        [m, withdrawals, others],
      );
      await tx.query(
        `INSERT INTO audit_log (id, account_id, at, actor_type, actor_label, action, ip)
         SELECT (m::bigint << 40) + $4 + g, o.ids[1 + g % array_length(o.ids, 1)], ${at('g', audits)}, 'user',
                'owner@example.com', 'login', '203.0.113.7'
           FROM (SELECT $1::int AS m) x, (SELECT $3::bigint[] AS ids) o, generate_series(1, $2::int) g`,
        [m, audits, others, firstId],
      );
    });
    if (m === now - 4 || m >= now - 2) await writeNotifications(db, m, facts, others);
  }
  await db.query('ALTER TABLE sales ENABLE TRIGGER sales_daily_totals_keep');
  // the sequences past the generated ids (which took the low numbers of every month)
  const top = firstId + Math.max(entries, audits, facts) + 1;
  for (const seq of ['journal_entries_id_seq', 'audit_log_id_seq', 'notification_deliveries_id_seq']) {
    await db.query(
      'SELECT setval($1::regclass, greatest($2::bigint, (SELECT last_value FROM pg_sequences WHERE sequencename = $3)))',
      [seq, top, seq],
    );
  }
}

/** A month of notification history: facts (UUIDv7 ids of the month), one delivered delivery each, an attempt each. */
async function writeNotifications(db: Db, m: number, facts: number, accounts: number[]): Promise<void> {
  const at = `partition_month_start(m) + ((g - 1)::float8 / ${facts}) * (least(partition_month_start(m + 1), now()) - partition_month_start(m))`;
  await db.tx(async (tx) => {
    await tx.query(
      `WITH f AS (
         SELECT g, m, o.ids[1 + g % array_length(o.ids, 1)] AS account_id, t,
                lpad(to_hex((extract(epoch FROM t) * 1000)::bigint), 12, '0') AS h, md5(m || ':' || g) AS r
           FROM (SELECT $1::int AS m) x, (SELECT $3::bigint[] AS ids) o, generate_series(1, $2::int) g,
                LATERAL (SELECT ${at} AS t) tt),
       e AS (
         INSERT INTO notification_events (id, account_id, event_type, subject_type, subject_id, webhook_body, created_at)
         SELECT (substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-7' || substr(r, 1, 3) || '-8' || substr(r, 4, 3) || '-'
                 || substr(r, 7, 12))::uuid, account_id, 'sale.paid', 'sale', g, $4, t
           FROM f
         RETURNING id, account_id, subject_id, created_at)
       INSERT INTO notification_deliveries
         (id, event_id, account_id, webhook_id, kind, target_host, status, attempts, status_code, created_at,
          last_attempt_at)
       SELECT ($1::bigint << 40) + $5 + e.subject_id, e.id, e.account_id, w.id, 'webhook', 'receiver.example:443',
              'DELIVERED', 1, 200, e.created_at, e.created_at
         FROM e JOIN webhooks w ON w.account_id = e.account_id`,
      [m, facts, accounts, BODY, firstId],
    );
    await tx.query(
      `INSERT INTO notification_attempts (delivery_id, attempt, event_type, url, redelivery, status_code, duration_ms,
          created_at)
       SELECT id, 1, 'sale.paid', 'https://receiver.example/hooks', false, 200, 42, created_at
         FROM notification_deliveries WHERE id >= $1::bigint << 40 AND id < ($1::bigint + 1) << 40`,
      [m],
    );
  });
}

/** 2,000 refused sales of today: the export measured reads the same rows at every scale. */
async function seedRefused(db: Db, accountId: number): Promise<void> {
  await db.query(
    `INSERT INTO sales (uuid, account_id, status, amount, system_fee, net_amount, reserve_amount, payment_method,
        customer, items, processor, external_transaction_id, refusal_reason)
     SELECT gen_random_uuid(), $1, 'RECUSADO', 10000, 0, 10000, 0, 'CREDIT_CARD',
        '{"name":"Bench Buyer","email":"buyer@example.com","document":"52998224725","phone":"5511987654321"}',
        '[{"id":1,"title":"Item","unitPrice":10000,"quantity":1,"tangible":false}]',
        'sandbox', 'refused_' || $1::bigint || '_' || g, '{"code":"CARD_DECLINED","message":"Não autorizada"}'
       FROM generate_series(1, 2000) g`,
    [accountId],
  );
}

async function tableRows(db: Db): Promise<Record<string, number>> {
  const rows = await db.query<{ t: string; n: number }>(
    `SELECT p.relname AS t, sum(c.reltuples)::bigint AS n
       FROM pg_class p LEFT JOIN pg_inherits i ON i.inhparent = p.oid
       JOIN pg_class c ON c.oid = coalesce(i.inhrelid, p.oid)
      WHERE p.relname IN ('postings', 'journal_entries', 'sales', 'withdrawals', 'audit_log', 'notification_events',
                          'notification_deliveries', 'notification_attempts')
      GROUP BY p.relname ORDER BY n DESC`,
  );
  return Object.fromEntries(rows.map((r) => [r.t, r.n]));
}

async function panelSession(server: BenchServer, accountId: number): Promise<string> {
  const [row] = await server.db.query<{ email: string }>('SELECT email FROM accounts WHERE id = $1', [
    accountId,
  ]);
  const res = await fetch(`${server.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: row!.email, password: 'bench-password' }),
  });
  if (res.status !== 200) throw new Error(`panel login: ${res.status} ${await res.text()}`);
  return res.headers.getSetCookie()[0]!.split(';')[0]!;
}

/** Lookups of 2,000 of the merchant's sales drawn at random from its whole history. */
async function lookupRequests(db: Db, merchant: BenchMerchant): Promise<autocannon.Request[]> {
  const rows = await db.query<{ uuid: string }>(
    'SELECT uuid FROM sales TABLESAMPLE SYSTEM (1) WHERE account_id = $1 LIMIT 2000',
    [merchant.accountId],
  );
  const uuids =
    rows.length > 0
      ? rows.map((r) => r.uuid)
      : (
          await db.query<{ uuid: string }>('SELECT uuid FROM sales WHERE account_id = $1 LIMIT 2000', [
            merchant.accountId,
          ])
        ).map((r) => r.uuid);
  let n = 0;
  return [
    {
      method: 'GET',
      path: '/',
      setupRequest: (req) => ({
        ...req,
        path: `/api/transactions/${uuids[n++ % uuids.length]}`,
        headers: merchant.keys,
      }),
    },
  ];
}

/** DUE_DELIVERIES deliveries due now, claimed in batches of 100 as a worker claims them: ms per delivery. */
async function measureClaim(db: Db, accountId: number): Promise<number> {
  await db.query(
    `WITH e AS (
       INSERT INTO notification_events (id, account_id, event_type, subject_type, subject_id, webhook_body)
       SELECT (substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-7' || substr(r, 1, 3) || '-8' || substr(r, 4, 3) || '-'
               || substr(r, 7, 12))::uuid, $1, 'sale.paid', 'sale', g, $3
         FROM generate_series(1, $2::int) g,
              LATERAL (SELECT lpad(to_hex((extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0') AS h,
                              md5('due:' || g || ':' || random()::text) AS r) x
       RETURNING id)
     INSERT INTO notification_deliveries (id, event_id, account_id, webhook_id, kind, target_host, ticket, next_attempt_at)
     SELECT notification_delivery_id(e.id), e.id, $1, w.id, 'webhook', 'receiver.example:443', gen_random_uuid(), now()
       FROM e JOIN webhooks w ON w.account_id = $1`,
    [accountId, DUE_DELIVERIES, BODY],
  );
  await db.query('ANALYZE notification_deliveries');
  let claimed = 0;
  const started = performance.now();
  for (;;) {
    const batch = await claimDue(db, {
      limit: 100,
      skipHosts: [],
      skipAccounts: [],
      accountHolding: new Map(),
      heldPerAccount: 1_000_000,
      holding: new Map(),
      heldPerHost: 1_000_000,
      perHost: 1_000_000,
      roundMs: 1000,
      marginMs: 500,
    });
    if (batch.length === 0) break;
    claimed += batch.length;
  }
  return (performance.now() - started) / Math.max(1, claimed);
}

/** The month past the retention (four months back) dropped by the retention run: how long it took. */
async function measureRetention(db: Db): Promise<ScaleRun['retention']> {
  const started = performance.now();
  const pruned = await pruneNotifications(db, new Date(Date.now() - 90 * 86_400_000));
  const seconds = (performance.now() - started) / 1000;
  const month = pruned.dropped[0];
  if (!month) {
    console.log(`  retention dropped nothing: ${JSON.stringify(pruned.kept)}`);
    return null;
  }
  console.log(
    `  retention: month ${month.month} (about ${month.deliveries.toLocaleString('en')} deliveries) dropped in ${seconds.toFixed(3)} s`,
  );
  return { month: month.month, deliveries: month.deliveries, seconds };
}

console.log(
  `scale: the hot paths at ${BASE.toLocaleString('en')} and ${TARGET.toLocaleString('en')} postings`,
);
const small = await prepare(BASE);
const large = await prepare(TARGET);
let failures = 0;
const ratios: { name: string; base: Measurement; scale: Measurement; ratio: number; rounds: number[] }[] = [];
try {
  const [smallPaths, largePaths] = [await paths(small), await paths(large)];
  console.log(
    '\n| path | req/s at base | req/s at scale | cost × (base ÷ scale, median round) | goal ≤ 1.2 |',
  );
  console.log('|---|---:|---:|---:|---|');
  for (const [i, one] of smallPaths.entries()) {
    // rounds alternated between the two gateways, so the machine's drift falls on both alike
    const m = await measureInterleaved(one.options, largePaths[i]!.options, 3, 5);
    const ratio = 1 / m.ratio;
    const ok = ratio <= 1.2 && m.target.non2xx === 0 && m.target.errors === 0;
    if (!ok) failures++;
    ratios.push({
      name: one.name,
      base: m.baseline,
      scale: m.target,
      ratio,
      rounds: m.ratios.map((r) => 1 / r),
    });
    console.log(
      `| ${one.name} | ${m.baseline.reqPerSec.toFixed(0)} | ${m.target.reqPerSec.toFixed(0)} | ${ratio.toFixed(2)} | ${ok ? 'yes' : 'NO'} |`,
    );
  }
  const runs = [await afterPaths(small), await afterPaths(large)];
  const [base, target] = runs as [ScaleRun, ScaleRun];
  // autovacuum's naptime is a minute: the dead tuples are read after it has had two chances
  await new Promise((r) => setTimeout(r, process.env.BENCH_QUICK ? 0 : 130_000));
  base.deadTuples = await deadTuples(small.server.db);
  target.deadTuples = await deadTuples(large.server.db);
  const claimRatio = target.claimMsPerDelivery / base.claimMsPerDelivery;
  if (claimRatio > 1.2) failures++;
  console.log(
    `| delivery claim (ms per delivery) | ${base.claimMsPerDelivery.toFixed(3)} ms | ${target.claimMsPerDelivery.toFixed(3)} ms | ${claimRatio.toFixed(2)} | ${claimRatio <= 1.2 ? 'yes' : 'NO'} |`,
  );
  const dropOk = target.retention !== null && target.retention.seconds < 1;
  if (!dropOk) failures++;
  console.log(
    `\nretention at scale: ${target.retention ? `${target.retention.seconds.toFixed(3)} s for about ${target.retention.deliveries.toLocaleString('en')} deliveries` : 'nothing dropped'} (goal < 1 s: ${dropOk ? 'yes' : 'NO'})`,
  );
  for (const r of runs) {
    console.log(
      `\n${r.rows.toLocaleString('en')} postings: written in ${r.writeSeconds.toFixed(0)} s, database ${(r.databaseBytes / 2 ** 30).toFixed(2)} GiB; rows ${JSON.stringify(r.tables)}`,
    );
    console.log(
      `  dead tuples after the run: ${r.deadTuples.map((d) => `${d.table} ${d.dead}/${d.live} (autovacuum ×${d.autovacuums})`).join(', ')}`,
    );
  }
  writeFileSync(
    path.join(import.meta.dirname, 'scale-results.json'),
    `${JSON.stringify({ commit: gitCommit(), machine: machine('PostgreSQL'), base, target, ratios, claimRatio, failures }, null, 2)}\n`,
  );
  console.log('\nwrote bench/scale-results.json');
} finally {
  await small.server.stop();
  await large.server.stop();
}
process.exit(failures === 0 ? 0 : 1);
