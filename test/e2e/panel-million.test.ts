/**
 * The panel at scale: one account with 1,000,000 sales, withdrawals and ledger lines. Every list, search,
 * filter and export query stays on indexes (EXPLAIN of the very SQL the domain sends), and each CSV export
 * of a million rows streams from a real server process in bounded memory (its peak RSS, read from /proc).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.js';
import { Statement } from '../../src/ledger/statement.js';
import { type Db, openDb, type Queryable } from '../../src/platform/db/db.js';
import { allSales, listSales, type SaleFilters } from '../../src/sales/panel.data.js';
import { allWithdrawals, listWithdrawals } from '../../src/withdrawals/panel.data.js';
import { BIG_TABLES, fillAccount } from '../support/big-account.js';
import { login } from '../support/factories.js';
import { freshDatabase } from '../support/pg.js';
import { type Explained, explaining, rowsRead, scansOf, seqScansReading, tableOf } from '../support/plans.js';
import { type ChildServer, spawnGateway } from '../support/server.js';

const N = 1_000_000;
/**
 * Below what holding an export would take: the test checks each export's CSV text alone is larger (and the
 * rows behind it, as objects, are several times larger still).
 */
const MAX_RSS_GROWTH_MB = 64;
const OUTPUT = path.resolve(import.meta.dirname, '../../test-output');

let database: { url: string; drop: () => Promise<void> };
let db: Db;
let server: ChildServer;
let accountId: number;
let cookie: string;
/** What the tests saw (plans, rows read, memory), left in test-output/panel-million.txt. */
const report: string[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  db = openDb({ databaseUrl: database.url, poolMax: 4 });
  const email = 'million@example.com';
  accountId = (await createAccount(db, { name: 'Million', email, password: 'million-password' })).id;
  await fillAccount(db, accountId, N);
  // the planner's statistics, and the visibility map that index-only scans rely on (autovacuum's job)
  await db.query('VACUUM ANALYZE sales, withdrawals, journal_entries, postings, ledger_accounts');
  server = await spawnGateway(['serve', '--no-worker'], {
    DATABASE_URL: database.url,
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-million-')),
    NODE_ENV: 'test',
    // a V8 heap far smaller than one export: a server that held an export would die, not just grow
    NODE_OPTIONS: '--max-old-space-size=96',
  });
  cookie = (await login(server, email, 'million-password')).cookie;
}, 600_000);

afterAll(async () => {
  await mkdir(OUTPUT, { recursive: true });
  writeFileSync(path.join(OUTPUT, 'panel-million.txt'), `${report.join('\n')}\n`);
  await server?.stop();
  await db?.close();
  await database?.drop();
});

describe('an account with 1,000,000 sales, withdrawals and ledger lines', () => {
  it('answers every panel list, search, filter and export query from indexes', async () => {
    const mid = await middleSale();
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString();
    const sale: SaleFilters = {
      limit: 20,
      before: null,
      from: null,
      to: null,
      status: null,
      paymentMethod: null,
      q: null,
    };
    const statement = new Statement(Buffer.alloc(32, 1));
    const shapes: Record<string, (q: Queryable) => Promise<unknown>> = {
      'sales list': (q) => listSales(q, accountId, sale),
      'sales next page': (q) => listSales(q, accountId, { ...sale, before: mid.id }),
      'sales status=PAGO': (q) => listSales(q, accountId, { ...sale, status: 'PAGO' }),
      'sales status=MED (none)': (q) => listSales(q, accountId, { ...sale, status: 'MED' }),
      'sales paymentMethod=BOLETO': (q) => listSales(q, accountId, { ...sale, paymentMethod: 'BOLETO' }),
      'sales from (last day)': (q) => listSales(q, accountId, { ...sale, from: day(1) }),
      'sales to (a day ago)': (q) => listSales(q, accountId, { ...sale, to: day(1) }),
      'sales from..to (one day)': (q) => listSales(q, accountId, { ...sale, from: day(4), to: day(3) }),
      'sales status + from..to': (q) =>
        listSales(q, accountId, { ...sale, status: 'FALHA', from: day(4), to: day(3) }),
      'sales q=uuid': (q) => listSales(q, accountId, { ...sale, q: mid.uuid }),
      'sales q=numeric id': (q) => listSales(q, accountId, { ...sale, q: String(mid.id) }),
      'sales q=document': (q) => listSales(q, accountId, { ...sale, q: formatCpf(mid.document) }),
      'sales q=email': (q) => listSales(q, accountId, { ...sale, q: mid.email }),
      'sales q=name': (q) => listSales(q, accountId, { ...sale, q: 'maria' }),
      'sales q=name (no match)': (q) => listSales(q, accountId, { ...sale, q: 'zuleika' }),
      'sales export': (q) => firstRows(allSales(q, accountId, sale), 1500),
      'sales export status=PAGO': (q) => firstRows(allSales(q, accountId, { ...sale, status: 'PAGO' }), 1500),
      'withdrawals list': (q) => listWithdrawals(q, accountId, { ...sale, status: null }),
      'withdrawals next page': (q) => listWithdrawals(q, accountId, { ...sale, before: mid.id }),
      'withdrawals status=FAILED': (q) => listWithdrawals(q, accountId, { ...sale, status: 'FAILED' }),
      'withdrawals from..to (one day)': (q) =>
        listWithdrawals(q, accountId, { ...sale, status: null, from: day(4), to: day(3) }),
      'withdrawals export': (q) => firstRows(allWithdrawals(q, accountId, { ...sale, status: null }), 1500),
      statement: (q) => statement.page(q, accountId, { limit: 20, from: null, to: null }),
      'statement from (last day)': (q) => statement.page(q, accountId, { limit: 20, from: day(1), to: null }),
      'statement to (a day ago)': (q) => statement.page(q, accountId, { limit: 20, from: null, to: day(1) }),
      'statement from..to (one day)': (q) =>
        statement.page(q, accountId, { limit: 20, from: day(4), to: day(3) }),
      'statement next page': async (q) => {
        const first = await statement.page(db, accountId, { limit: 20, from: null, to: null });
        return statement.page(q, accountId, { limit: 20, from: null, to: null, cursor: first.nextCursor! });
      },
      'statement export': (q) => firstRows(statement.all(q, accountId, { from: null, to: null }), 1500),
    };

    for (const [shape, run] of Object.entries(shapes)) {
      const plans: Explained[] = [];
      await run(explaining(db, plans));
      // scans of the big tables, and bitmap index scans (which name no table)
      const scans = [...new Set(plans.flatMap((p) => scansOf(p.plan)))].filter(
        (s) => !s.includes(' on ') || BIG_TABLES.includes(tableOf(s.slice(s.lastIndexOf(' on ') + 4))),
      );
      const read = plans.reduce((sum, p) => sum + rowsRead(p.plan, BIG_TABLES), 0);
      report.push(`${shape}: ${scans.join('; ')} — ${read.toLocaleString('en')} rows read`);
      expect(plans.length, shape).toBeGreaterThan(0);
      expect(
        plans.flatMap((p) => seqScansReading(p.plan, BIG_TABLES)),
        shape,
      ).toEqual([]);
    }
  }, 300_000);

  it.each(['sales', 'withdrawals', 'statement'] as const)(
    'streams the %s export of every row in bounded memory',
    async (what) => {
      const pid = server.process.pid!;
      resetPeak(pid);
      const before = memoryKb(pid).rss;
      const res = await request(`${server.url}/api/${what}/export.csv`, { headers: { cookie } });
      expect(res.statusCode).toBe(200);
      const { count, first, last, bytes } = await readLines(res.body);
      const peak = memoryKb(pid).peak;
      report.push(
        `${what} export: ${count} rows, ${Math.round(bytes / 2 ** 20)} MB of CSV, peak RSS ${peak} kB, ${before} kB before`,
      );
      expect(count).toBe(N);
      await expectEnds(what, first, last);
      expect((peak - before) / 1024, `peak RSS ${peak} kB, before ${before} kB`).toBeLessThan(
        MAX_RSS_GROWTH_MB,
      );
      expect(bytes / 2 ** 20).toBeGreaterThan(MAX_RSS_GROWTH_MB);
    },
    600_000,
  );
});

/** The newest row comes first and the oldest last; row i of the data set has amount 1000 + i cents. */
async function expectEnds(what: string, first: Record<string, string>, last: Record<string, string>) {
  if (what === 'statement') {
    const [balance] = await db.query<{ balance: number }>(
      `SELECT balance FROM ledger_accounts WHERE account_id = $1 AND bucket = 'available'`,
      [accountId],
    );
    expect(first.disponivel).toBe(reais(1000 + N));
    expect(first.saldo_disponivel).toBe(reais(balance!.balance));
    expect(last).toMatchObject({ disponivel: '10,01', saldo_disponivel: '10,01' });
    return;
  }
  const table = what === 'sales' ? 'sales' : 'withdrawals';
  const [ends] = await db.query<{ newest: string; oldest: string }>(
    `SELECT (SELECT uuid FROM ${table} WHERE account_id = $1 ORDER BY id DESC LIMIT 1) AS newest,
            (SELECT uuid FROM ${table} WHERE account_id = $1 ORDER BY id LIMIT 1) AS oldest`,
    [accountId],
  );
  expect(first).toMatchObject({ uuid: ends!.newest, valor: reais(1000 + N) });
  expect(last).toMatchObject({ uuid: ends!.oldest, valor: '10,01' });
}

const reais = (cents: number) => `${Math.trunc(cents / 100)},${String(cents % 100).padStart(2, '0')}`;

/** A sale from the middle of the account's history, for the search shapes. */
async function middleSale() {
  const [row] = await db.query<{ id: number; uuid: string; email: string; document: string }>(
    `SELECT id, uuid, customer ->> 'email' AS email, customer ->> 'document' AS document FROM sales
      WHERE id = (SELECT min(id) + $2 FROM sales WHERE account_id = $1)`,
    [accountId, N / 2],
  );
  return row!;
}

const formatCpf = (d: string) => `${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6, 9)}-${d.slice(9)}`;

async function firstRows<T>(rows: AsyncIterable<T>, n: number): Promise<T[]> {
  const kept: T[] = [];
  for await (const row of rows) {
    kept.push(row);
    if (kept.length >= n) break;
  }
  return kept;
}

/**
 * The rows of a CSV export counted by its line ends, without parsing a million rows in the test process (it
 * shares the machine with the server it measures). That holds because no field of this data set needs quoting,
 * which the test checks: no `"` anywhere. The header, the first row and the last row are parsed as CSV.
 */
async function readLines(body: AsyncIterable<Buffer>) {
  let lineEnds = 0;
  let bytes = 0;
  let quoted = false;
  let head = Buffer.alloc(0);
  let tail = Buffer.alloc(0);
  for await (const chunk of body) {
    bytes += chunk.length;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lineEnds++;
    quoted ||= chunk.includes(34);
    if (head.length < 4096) head = Buffer.concat([head, chunk]);
    tail = Buffer.concat([tail, chunk]).subarray(-4096);
  }
  expect(quoted, 'a quoted field: rows can no longer be counted by line ends').toBe(false);
  expect(tail.at(-1), 'the export ends with a line end').toBe(10);
  const [header, firstLine] = head.toString('utf8').split('\n');
  const lastLine = tail.toString('utf8').split('\n').at(-2)!;
  const record = (line: string) =>
    parse(`${header}\n${line}\n`, { bom: true, delimiter: ';', columns: true })[0] as Record<string, string>;
  return { count: lineEnds - 1, first: record(firstLine!), last: record(lastLine), bytes };
}

/** Linux: writing 5 to clear_refs resets the process's peak RSS (VmHWM), so each export is measured alone. */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

function memoryKb(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)![1]);
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}
