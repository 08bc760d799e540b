import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Posting, postEntry } from '../../src/ledger/ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { runGateway } from '../support/cli.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { bypassLedgerGuards, fundMerchant } from '../support/ledger.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let m: TestMerchant;

beforeAll(async () => {
  server = await startServer({ workers: false });
  m = await createMerchant(server);
  await fundMerchant(server.runtime.platform.db, m.accountId, 50_000);
});
afterAll(() => server?.close());

/** postEntry in a transaction of its own. */
const postAlone = (kind: string, postings: Posting[]) =>
  server.runtime.platform.db.tx((tx) => postEntry(tx, { kind, refType: 'test', refId: 1, postings }));

describe('gateway ledger verify', () => {
  it('passes on a consistent ledger', async () => {
    const report = await verifyLedger(server.runtime.platform.db);
    expect(report).toMatchObject({ ok: true, problems: [] });
    const out = await runGateway(['ledger', 'verify', '--json'], server.env);
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ ok: true, problems: [] });
    const text = await runGateway(['ledger', 'verify'], server.env);
    expect(text.stdout).toMatch(
      /^ledger ok: \d+ journal entries, \d+ ledger accounts, every balance equal to its postings\n$/,
    );
  });

  it('refuses an unbalanced entry before writing anything', async () => {
    const { db } = server.runtime.platform;
    await expect(
      postAlone('test.bad', [{ target: { accountId: m.accountId, bucket: 'available' }, amount: 5 }]),
    ).rejects.toThrow(/unbalanced/);
    expect((await verifyLedger(db)).ok).toBe(true);
  });

  it('refuses an entry with a posting to a ledger account that does not exist, writing nothing', async () => {
    const { db } = server.runtime.platform;
    const [before] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM journal_entries');
    await expect(
      postAlone('test.unknown_account', [
        { target: { system: 'nowhere' as 'processor' }, amount: -5 },
        { target: { accountId: m.accountId, bucket: 'available' }, amount: 5 },
      ]),
    ).rejects.toThrow(/test.unknown_account names no ledger account/);
    const [after] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM journal_entries');
    expect(after!.n).toBe(before!.n);
    expect((await verifyLedger(db)).ok).toBe(true);
  });

  it('names a corrupted maintained balance and exits non-zero', async () => {
    const { db } = server.runtime.platform;
    await db.query(
      `UPDATE ledger_accounts SET balance = balance + 1 WHERE account_id = $1 AND bucket = 'available'`,
      [m.accountId],
    );
    try {
      const report = await verifyLedger(db);
      expect(report.ok).toBe(false);
      expect(report.problems).toEqual([
        {
          kind: 'balance_mismatch',
          account: `merchant:${m.accountId}:available`,
          expected: 50_000,
          actual: 50_001,
        },
      ]);
      const out = await runGateway(['ledger', 'verify'], server.env);
      expect(out.code).toBe(1);
      expect(out.stderr).toContain(`merchant:${m.accountId}:available`);
      const json = await runGateway(['ledger', 'verify', '--json'], server.env);
      expect(json.code).toBe(1);
      // the report, and the `error` every failing command's document carries
      expect(JSON.parse(json.stdout)).toMatchObject({
        ok: false,
        error: { exitCode: 1, message: expect.stringContaining('ledger verify failed') },
      });
    } finally {
      await db.query(
        `UPDATE ledger_accounts SET balance = balance - 1 WHERE account_id = $1 AND bucket = 'available'`,
        [m.accountId],
      );
    }
  });

  it('names an entry whose postings do not sum to zero', async () => {
    const { db } = server.runtime.platform;
    const [p] = await db.query<{ id: number; entry_id: number }>(
      `SELECT p.id, p.entry_id FROM postings p JOIN ledger_accounts la ON la.id = p.ledger_account_id
        WHERE la.code = 'system:processor' LIMIT 1`,
    );
    await bypassLedgerGuards(db, 'UPDATE postings SET amount = amount - 7 WHERE id = $1', [p!.id]);
    try {
      const report = await verifyLedger(db);
      expect(report.problems).toContainEqual({ kind: 'unbalanced_entry', entryId: p!.entry_id, sum: -7 });
      expect((await runGateway(['ledger', 'verify'], server.env)).code).toBe(1);
    } finally {
      await bypassLedgerGuards(db, 'UPDATE postings SET amount = amount + 7 WHERE id = $1', [p!.id]);
    }
    expect((await verifyLedger(db)).ok).toBe(true);
  });

  it('names a posting whose journal entry or ledger account does not exist (postings carry no foreign keys)', async () => {
    const { db } = server.runtime.platform;
    const [real] = await db.query<{ entry_id: number; ledger_account_id: number }>(
      'SELECT entry_id, ledger_account_id FROM postings ORDER BY id LIMIT 1',
    );
    // the last id of the real entry's month: a partition that exists, an entry that does not
    const missing = (Math.floor(real!.entry_id / 2 ** 40) + 1) * 2 ** 40 - 1;
    // each pair sums to zero: only the missing entry or account is wrong
    const orphans = await db.query<{ id: number; entry_id: number; ledger_account_id: number }>(
      `INSERT INTO postings (entry_id, ledger_account_id, amount)
       VALUES ($1, $2, 5), ($1, $2, -5), ($3, $4, 5), ($3, $4, -5)
       RETURNING id, entry_id, ledger_account_id`,
      [missing, real!.ledger_account_id, real!.entry_id, missing],
    );
    try {
      const report = await verifyLedger(db);
      for (const o of orphans) {
        expect(report.problems).toContainEqual({
          kind: 'orphan_posting',
          postingId: o.id,
          entryId: o.entry_id,
          ledgerAccountId: o.ledger_account_id,
        });
      }
      const out = await runGateway(['ledger', 'verify'], server.env);
      expect(out.code).toBe(1);
      expect(out.stderr).toContain(`posting ${orphans[0]!.id} names journal entry ${missing}`);
    } finally {
      await bypassLedgerGuards(db, 'DELETE FROM postings WHERE id = ANY($1::bigint[])', [
        orphans.map((o) => o.id),
      ]);
    }
    expect((await verifyLedger(db)).ok).toBe(true);
  });

  it('the database refuses to change or remove journal entries and postings, and to remove ledger accounts or change what identifies them', async () => {
    const { db } = server.runtime.platform;
    const [p] = await db.query<{ id: number; entry_id: number; ledger_account_id: number; amount: number }>(
      'SELECT id, entry_id, ledger_account_id, amount FROM postings ORDER BY id LIMIT 1',
    );
    const refused = [
      ['UPDATE postings SET amount = amount + 1 WHERE id = $1', p!.id],
      ['DELETE FROM postings WHERE id = $1', p!.id],
      ['TRUNCATE postings CASCADE'],
      [`UPDATE journal_entries SET kind = 'x' WHERE id = $1`, p!.entry_id],
      ['DELETE FROM journal_entries WHERE id = $1', p!.entry_id],
      ['TRUNCATE journal_entries CASCADE'],
      ['DELETE FROM ledger_accounts WHERE id = $1', p!.ledger_account_id],
      ['UPDATE ledger_accounts SET id = id + 1000000 WHERE id = $1', p!.ledger_account_id],
      [`UPDATE ledger_accounts SET code = 'moved' WHERE id = $1`, p!.ledger_account_id],
      ['TRUNCATE ledger_accounts CASCADE'],
    ] as const;
    for (const [sql, id] of refused) {
      await expect(db.query(sql, id === undefined ? [] : [id]), sql).rejects.toThrow(/is append-only/);
    }
    // each month on its own too, the months made later included (month_partitions_ensure)
    await db.query(
      `SELECT month_partitions_ensure(t, partition_month(now()) + 5, partition_month(now()) + 6)
         FROM unnest(ARRAY['journal_entries', 'postings']) AS t`,
    );
    const months = await db.query<{ name: string }>(
      `SELECT inhrelid::regclass::text AS name FROM pg_inherits
        WHERE inhparent IN ('journal_entries'::regclass, 'postings'::regclass)`,
    );
    expect(months.length).toBeGreaterThanOrEqual(10);
    for (const { name } of months) {
      await expect(db.query(`TRUNCATE ${name} CASCADE`), name).rejects.toThrow(/is append-only/);
    }
    const [after] = await db.query<{ amount: number }>('SELECT amount FROM postings WHERE id = $1', [p!.id]);
    expect(after!.amount).toBe(p!.amount);
    expect((await verifyLedger(db)).ok).toBe(true);
  });
});
