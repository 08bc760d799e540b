/**
 * Upgrading a database that already holds history to the monthly partitions (migrations 270 and 271): what was
 * there stays, readable, in the `_legacy` partitions (facts of the current month, and facts with pre-UUIDv7
 * random ids, placed where their ids fall), new rows go to their months, and the ledger still verifies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../../src/ledger/verify.js';
import { type Db, openDb } from '../../../src/platform/db/db.js';
import { migrate } from '../../../src/platform/db/migrate.js';
import { fanOutPending } from '../../../src/webhooks/fanout.js';
import { recordNotification } from '../../../src/webhooks/outbox.js';
import { admin, urlFor } from '../../support/pg.js';

const name = `gw_partup_${process.pid}_${Date.now()}`;
let db: Db;

beforeAll(async () => {
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  db = openDb({ databaseUrl: urlFor(name) });
});
afterAll(async () => {
  await db?.close();
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
});

const partOf = async (table: string, where: string, params: unknown[]) =>
  (
    await db.query<{ part: string }>(
      `SELECT tableoid::regclass::text AS part FROM ${table} WHERE ${where}`,
      params,
    )
  ).map((r) => r.part);

describe('a database with history, upgraded to monthly partitions', () => {
  it('keeps every row where it can be read, and writes new ones in their months', async () => {
    await migrate(db, { through: '269_sale_payer_token' });
    const [account] = await db.query<{ id: number }>(
      "INSERT INTO accounts (name, email) VALUES ('Loja', 'loja@example.com') RETURNING id",
    );
    const accountId = account!.id;
    // history as the release before wrote it: random (v4) fact ids, a UUIDv7 one of this month, deliveries
    // and attempts numbered by the old sequence, a balanced ledger entry, an audit row
    const [v4] = await db.query<{ id: string }>(
      `INSERT INTO notification_events (id, account_id, event_type, subject_type, subject_id, webhook_body)
       VALUES (gen_random_uuid(), $1, 'sale.paid', 'sale', 1, '{}') RETURNING id`,
      [accountId],
    );
    const v7 = await db.tx((tx) =>
      recordNotification(tx, {
        accountId,
        event: 'sale.paid',
        subjectType: 'sale',
        subjectId: 2,
        webhookBody: {},
      }),
    );
    await db.query('DELETE FROM notification_outbox');
    const [delivery] = await db.query<{ id: number }>(
      `INSERT INTO notification_deliveries (event_id, account_id, kind, target_host, status)
       VALUES ($1, $2, 'postback', 'loja.example:443', 'DELIVERED') RETURNING id`,
      [v4!.id, accountId],
    );
    await db.query(
      `INSERT INTO notification_attempts (delivery_id, attempt, event_type, url, redelivery, duration_ms)
       VALUES ($1, 1, 'sale.paid', 'https://loja.example/pb', false, 12)`,
      [delivery!.id],
    );
    await db.query(
      `INSERT INTO ledger_accounts (code, account_id, bucket, balance)
       VALUES ('merchant:' || $1 || ':available', $1::bigint, 'available', 500),
              ('merchant:' || $1 || ':blocked', $1::bigint, 'blocked', 0)`,
      [accountId],
    );
    await db.query(
      `INSERT INTO ledger_accounts (code, balance) VALUES ('system:processor', -500)
       ON CONFLICT (code) DO UPDATE SET balance = ledger_accounts.balance - 500`,
    );
    const [entry] = await db.query<{ id: number }>(
      "INSERT INTO journal_entries (kind, ref_type, ref_id) VALUES ('test.fund', 'test', 1) RETURNING id",
    );
    await db.query(
      `INSERT INTO postings (entry_id, ledger_account_id, amount)
       SELECT $1, id, CASE WHEN code = 'system:processor' THEN -500 ELSE 500 END FROM ledger_accounts
        WHERE code IN ('system:processor', 'merchant:' || $2::bigint || ':available')`,
      [entry!.id, accountId],
    );
    await db.query(
      "INSERT INTO audit_log (account_id, actor_type, actor_label, action) VALUES ($1, 'user', 'dono', 'login')",
      [accountId],
    );
    expect((await verifyLedger(db)).problems).toEqual([]);

    await migrate(db);

    const [month] = await db.query<{ suffix: string }>(
      "SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYYMM') AS suffix",
    );
    expect(await partOf('notification_deliveries', 'id = $1', [delivery!.id])).toEqual([
      'notification_deliveries_legacy',
    ]);
    expect(await partOf('notification_attempts', 'delivery_id = $1', [delivery!.id])).toEqual([
      'notification_attempts_legacy',
    ]);
    expect(await partOf('notification_events', 'id = $1', [v7])).toEqual([
      `notification_events_p${month!.suffix}`,
    ]);
    expect(await partOf('notification_events', 'id = $1', [v4!.id])).toHaveLength(1);
    expect(await partOf('journal_entries', 'id = $1', [entry!.id])).toEqual(['journal_entries_legacy']);
    expect(await partOf('postings', 'entry_id = $1', [entry!.id])).toEqual([
      'postings_legacy',
      'postings_legacy',
    ]);
    expect(await partOf('audit_log', 'account_id = $1', [accountId])).toEqual(['audit_log_legacy']);
    expect((await verifyLedger(db)).problems).toEqual([]);

    // new history goes to its month: a fact and its delivery, a ledger entry
    await db.query(
      `INSERT INTO webhooks (account_id, url, target_host, events, secret_enc)
       VALUES ($1, 'https://loja.example/hooks', 'loja.example:443', ARRAY['*'], 'unused')`,
      [accountId],
    );
    const fresh = await db.tx((tx) =>
      recordNotification(tx, {
        accountId,
        event: 'sale.paid',
        subjectType: 'sale',
        subjectId: 3,
        webhookBody: {},
      }),
    );
    await fanOutPending(db, 10);
    expect(await partOf('notification_deliveries', 'event_id = $1', [fresh])).toEqual([
      `notification_deliveries_p${month!.suffix}`,
    ]);
    const [next] = await db.query<{ part: string }>(
      `INSERT INTO journal_entries (kind, ref_type, ref_id) VALUES ('test.fund', 'test', 2)
       RETURNING tableoid::regclass::text AS part`,
    );
    expect(next!.part).toBe(`journal_entries_p${month!.suffix}`);
  });
});
