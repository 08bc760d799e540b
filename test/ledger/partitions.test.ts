/**
 * The ledger (journal entries, postings) and the audit log are partitioned by month (migration 271): an entry's
 * id carries its transaction's month and its postings live in that month; both stay append-only, partition by
 * partition; a statement's period reads no month before it starts (EXPLAIN).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLedgerPartitions } from '../../src/ledger/ledger.js';
import { firstEntryAtOrAfter } from '../../src/ledger/statement.js';
import { tablesRead } from '../support/explain.js';
import { createMerchant } from '../support/factories.js';
import { fundMerchant } from '../support/ledger.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ workers: false });
});
afterAll(async () => {
  await server?.close();
});
const db = () => server.runtime.platform.db;

async function month(back: number): Promise<{ month: number; suffix: string }> {
  const [row] = await db().query<{ month: number; suffix: string }>(
    `SELECT m AS month, to_char(partition_month_start(m) AT TIME ZONE 'UTC', 'YYYYMM') AS suffix
       FROM (SELECT partition_month(now()) - $1 AS m) x`,
    [back],
  );
  return row!;
}

describe('the ledger by month', () => {
  it("writes an entry and its postings in its transaction's month, append-only in every partition", async () => {
    const m = await createMerchant(server);
    await fundMerchant(db(), m.accountId, 12_345);
    const now = await month(0);
    const [entry] = await db().query<{ id: number; part: string }>(
      `SELECT e.id, e.tableoid::regclass::text AS part FROM journal_entries e
        WHERE e.ref_type = 'test' AND e.ref_id = $1`,
      [m.accountId],
    );
    expect(Math.floor(entry!.id / 2 ** 40)).toBe(now.month);
    expect(entry!.part).toBe(`journal_entries_p${now.suffix}`);
    const postings = await db().query<{ part: string }>(
      'SELECT tableoid::regclass::text AS part FROM postings WHERE entry_id = $1',
      [entry!.id],
    );
    expect(postings.map((p) => p.part)).toEqual([`postings_p${now.suffix}`, `postings_p${now.suffix}`]);
    for (const table of ['postings', `postings_p${now.suffix}`]) {
      await expect(
        db().query(`UPDATE ${table} SET amount = amount + 1 WHERE entry_id = $1`, [entry!.id]),
      ).rejects.toThrow(/append-only/);
    }
    await expect(
      db().query(`DELETE FROM journal_entries_p${now.suffix} WHERE id = $1`, [entry!.id]),
    ).rejects.toThrow(/append-only/);
    const [audit] = await db().query<{ part: string }>(
      'SELECT tableoid::regclass::text AS part FROM audit_log WHERE account_id = $1 ORDER BY id DESC LIMIT 1',
      [m.accountId],
    );
    expect(audit?.part).toBe(`audit_log_p${now.suffix}`);
  });

  it("a statement's period reads its own months only, and the coming months are made ahead", async () => {
    const m = await createMerchant(server);
    await fundMerchant(db(), m.accountId, 500);
    const old = await month(2);
    await db().query(
      "SELECT month_partitions_ensure(t, $1, $1) FROM unnest(ARRAY['journal_entries', 'postings']) t",
      [old.month],
    );
    const now = await month(0);
    const from = new Date(Date.now() - 60_000).toISOString();
    const first = await firstEntryAtOrAfter(db(), from);
    expect(first).toBeLessThan(Number.MAX_SAFE_INTEGER);
    const read = await tablesRead(
      db(),
      /^journal_entries_/,
      `SELECT id FROM journal_entries
        WHERE created_at >= $1::timestamptz
          AND (id >= (partition_month($1::timestamptz)::bigint << 40) OR id < 1099511627776)
        ORDER BY created_at, id LIMIT 1`,
      [from],
    );
    expect(read).toContain(`journal_entries_p${now.suffix}`);
    expect(read).not.toContain(`journal_entries_p${old.suffix}`);
    const nextMonth = (now.month + 1) * 2 ** 40;
    const [bucket] = await db().query<{ id: number }>(
      "SELECT id FROM ledger_accounts WHERE account_id = $1 AND bucket = 'available'",
      [m.accountId],
    );
    const pages = await tablesRead(
      db(),
      /^postings_/,
      `SELECT entry_id FROM postings WHERE ledger_account_id = $1 AND entry_id < $2 AND entry_id >= $3
        ORDER BY entry_id DESC LIMIT 50`,
      [bucket!.id, nextMonth, first],
    );
    expect(pages).toEqual([`postings_p${now.suffix}`]);
    const far = await month(-3);
    await db().query(`DROP TABLE journal_entries_p${far.suffix}, postings_p${far.suffix}`);
    expect(await ensureLedgerPartitions(db())).toBe(2);
    expect(await ensureLedgerPartitions(db())).toBe(0);
  });
});
