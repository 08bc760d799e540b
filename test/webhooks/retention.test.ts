/**
 * Notification history is partitioned by month (a fact, its deliveries and their attempts in the same month's
 * partitions) and retention drops whole months: `gateway notifications prune` and the workers' daily run.
 * A month with pending work, or a fact still in the outbox, stays; the lookups the hot paths make by id touch
 * one partition only (EXPLAIN).
 */
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fanOutPending } from '../../src/webhooks/fanout.js';
import { ensureNotificationPartitions, pruneNotifications } from '../../src/webhooks/retention.js';
import { runGateway } from '../support/cli.js';
import { tablesRead } from '../support/explain.js';
import { createMerchant } from '../support/factories.js';
import { recordFact } from '../support/notifications.js';
import { startServer, type TestServer } from '../support/server.js';
import { createWebhook } from '../support/webhooks.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ workers: false });
});
afterAll(async () => {
  await server?.close();
});

const db = () => server.runtime.platform.db;

/** The month `back` months before the current one (UTC), as partition_month numbers it, and its middle. */
async function monthBack(back: number): Promise<{ month: number; label: string; at: Date }> {
  const [row] = await db().query<{ month: number; label: string; at: Date }>(
    `SELECT m AS month, to_char(partition_month_start(m) AT TIME ZONE 'UTC', 'YYYY-MM') AS label,
            partition_month_start(m) + interval '14 days' AS at
       FROM (SELECT partition_month(now()) - $1 AS m) x`,
    [back],
  );
  return row!;
}

/** A sale fact recorded as the outbox records one, at an instant of the past (its UUIDv7 carries the time). */
async function factAt(accountId: number, at: Date): Promise<string> {
  const id = uuidv7({ msecs: at.getTime() });
  await db().query(
    `WITH n AS (
       INSERT INTO notification_events (id, account_id, event_type, subject_type, subject_id, webhook_body, created_at)
       VALUES ($1, $2, 'sale.paid', 'sale', 1, '{}', $3) RETURNING id, created_at)
     INSERT INTO notification_outbox (event_id, created_at) SELECT id, created_at FROM n`,
    [id, accountId, at],
  );
  return id;
}

async function partitionsOf(label: string): Promise<string[]> {
  const suffix = label.replace('-', '');
  const rows = await db().query<{ relname: string }>(
    `SELECT relname FROM pg_class WHERE relname = ANY ($1::text[]) ORDER BY relname`,
    [
      ['notification_events', 'notification_deliveries', 'notification_attempts'].map(
        (t) => `${t}_p${suffix}`,
      ),
    ],
  );
  return rows.map((r) => r.relname);
}

describe('notification history by month', () => {
  it('drops a finished old month whole, keeps one with a pending delivery, one with a fact in the outbox, and the recent ones', async () => {
    const m = await createMerchant(server);
    await createWebhook(server, m, 'http://127.0.0.9:9/prune', ['sale.paid']);
    const [done, pending, waiting] = [await monthBack(5), await monthBack(4), await monthBack(3)];
    await db().query('SELECT notification_partitions_ensure($1, $2)', [done.month, waiting.month]);
    const doneFacts = [await factAt(m.accountId, done.at), await factAt(m.accountId, done.at)];
    const pendingFact = await factAt(m.accountId, pending.at);
    await fanOutPending(db(), 100);
    const waitingFact = await factAt(m.accountId, waiting.at); // not fanned out: still in the outbox
    const recent = await recordFact(server, m.accountId, 'sale.paid');

    const rows = await db().query<{ id: number; event_id: string }>(
      'SELECT id, event_id FROM notification_deliveries WHERE event_id = ANY ($1::uuid[]) ORDER BY id',
      [[...doneFacts, pendingFact]],
    );
    expect(rows).toHaveLength(3);
    // a delivery is numbered in its fact's month
    for (const r of rows) {
      const month = r.event_id === pendingFact ? pending.month : done.month;
      expect(Math.floor(r.id / 2 ** 40)).toBe(month);
    }
    const doneDeliveries = rows.filter((r) => doneFacts.includes(r.event_id)).map((r) => r.id);
    await db().query(
      `UPDATE notification_deliveries SET status = 'DELIVERED', ticket = NULL WHERE id = ANY ($1)`,
      [doneDeliveries],
    );
    for (const id of doneDeliveries) {
      await db().query(
        `INSERT INTO notification_attempts (delivery_id, attempt, event_type, url, redelivery, status_code, duration_ms)
         VALUES ($1, 1, 'sale.paid', 'http://127.0.0.9:9/prune', false, 200, 5)`,
        [id],
      );
    }
    await db().query('ANALYZE notification_events, notification_deliveries, notification_attempts');

    const pruned = await pruneNotifications(db(), new Date(Date.now() - 30 * 86_400_000));
    expect(pruned.dropped).toContainEqual({ month: done.label, facts: 2, deliveries: 2, attempts: 2 });
    expect(pruned.kept).toContainEqual({ month: pending.label, reason: 'a delivery is still pending' });
    expect(pruned.kept).toContainEqual({ month: waiting.label, reason: 'a fact still waits in the outbox' });
    expect(await partitionsOf(done.label)).toEqual([]);
    expect(await partitionsOf(pending.label)).toHaveLength(3);
    const left = await db().query<{ id: string }>(
      'SELECT id FROM notification_events WHERE id = ANY ($1::uuid[])',
      [[...doneFacts, pendingFact, waitingFact, recent]],
    );
    expect(left.map((e) => e.id).sort()).toEqual([pendingFact, waitingFact, recent].sort());

    // the pending delivery finished and the waiting fact fanned out: the next run drops both months
    await db().query(
      `UPDATE notification_deliveries SET status = 'FAILED', ticket = NULL WHERE event_id = $1`,
      [pendingFact],
    );
    await fanOutPending(db(), 100);
    await db().query(
      `UPDATE notification_deliveries SET status = 'DELIVERED', ticket = NULL WHERE event_id = $1`,
      [waitingFact],
    );
    const again = await pruneNotifications(db(), new Date(Date.now() - 30 * 86_400_000));
    expect(again.dropped.map((d) => d.month)).toEqual(expect.arrayContaining([pending.label, waiting.label]));
    expect(again.kept).toEqual([]);
    // the current month is never dropped, and its partitions with those of the coming months exist
    expect(await partitionsOf((await monthBack(0)).label)).toHaveLength(3);
    expect(await partitionsOf((await monthBack(-3)).label)).toHaveLength(3);
  });

  it('keeps a month whose tables stay busy past its attempts, and drops it once they are free', async () => {
    const m = await createMerchant(server);
    const old = await monthBack(6);
    await db().query('SELECT notification_partitions_ensure($1, $1)', [old.month]);
    await factAt(m.accountId, old.at);
    await fanOutPending(db(), 100);
    // a long read holds the tables' lock through the prune's three attempts of a second each
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reading = () => {};
    const read = new Promise<void>((resolve) => {
      reading = resolve;
    });
    const reader = db().tx(async (tx) => {
      await tx.query('SELECT 1 FROM notification_events LIMIT 1');
      reading();
      await held;
    });
    await read;
    const busy = await pruneNotifications(db(), new Date(Date.now() - 30 * 86_400_000)).finally(release);
    await reader;
    expect(busy.kept).toContainEqual({
      month: old.label,
      reason: 'the tables were busy: tried again at the next run',
    });
    expect(await partitionsOf(old.label)).toHaveLength(3);
    const free = await pruneNotifications(db(), new Date(Date.now() - 30 * 86_400_000));
    expect(free.dropped.map((d) => d.month)).toContain(old.label);
    expect(await partitionsOf(old.label)).toEqual([]);
  });

  it('keeps every month that ended less than 30 days ago, however short the retention asked', async () => {
    const pruned = await pruneNotifications(db(), new Date(Date.now() - 86_400_000));
    expect(Date.now() - Date.parse(pruned.before)).toBeGreaterThanOrEqual(30 * 86_400_000);
    const current = await monthBack(0);
    expect(pruned.dropped.map((d) => d.month)).not.toContain(current.label);
    expect(await partitionsOf(current.label)).toHaveLength(3);
  });

  it('creates the coming months ahead, once, whoever asks', async () => {
    const far = await monthBack(-3);
    await db().query(
      `DROP TABLE ${['notification_attempts', 'notification_deliveries', 'notification_events']
        .map((t) => `${t}_p${far.label.replace('-', '')}`)
        .join(', ')}`,
    );
    const made = await Promise.all([ensureNotificationPartitions(db()), ensureNotificationPartitions(db())]);
    expect(made.sort()).toEqual([0, 1]);
    expect(await partitionsOf(far.label)).toHaveLength(3);
  });

  it('gateway notifications prune says which months went and which stayed', async () => {
    const cli = await runGateway(['notifications', 'prune', '--older-than-days', '60'], {
      DATABASE_URL: server.databaseUrl,
    });
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(
      /^notification history from before \d{4}-\d\d-\d\dT.*: \d+ month\(s\) dropped/,
    );
  });
});

describe('partition pruning on the hot paths', () => {
  const partitionsRead = (sql: string, params: unknown[]) =>
    tablesRead(db(), /^notification_(events|deliveries|attempts)_/, sql, params);

  it('a fact, a delivery and its attempts, read or moved by id, touch their month only', async () => {
    const m = await createMerchant(server);
    await createWebhook(server, m, 'http://127.0.0.9:9/pruning', ['sale.paid']);
    const old = await monthBack(2);
    await db().query('SELECT notification_partitions_ensure($1, $1)', [old.month]);
    await factAt(m.accountId, old.at);
    const fact = await recordFact(server, m.accountId, 'sale.paid');
    await fanOutPending(db(), 100);
    const [d] = await db().query<{ id: number }>(
      'SELECT id FROM notification_deliveries WHERE event_id = $1',
      [fact],
    );
    const suffix = (await monthBack(0)).label.replace('-', '');
    expect(await partitionsRead('SELECT * FROM notification_events WHERE id = $1', [fact])).toEqual([
      `notification_events_p${suffix}`,
    ]);
    expect(
      await partitionsRead(
        `UPDATE notification_deliveries SET status = 'PENDING', ticket = gen_random_uuid() WHERE id = $1`,
        [d!.id],
      ),
    ).toEqual([`notification_deliveries_p${suffix}`]);
    expect(
      await partitionsRead('SELECT * FROM notification_attempts WHERE delivery_id = $1', [d!.id]),
    ).toEqual([`notification_attempts_p${suffix}`]);
    // a delivery joined to its fact: one partition of each
    expect(
      await partitionsRead(
        `SELECT e.webhook_body FROM notification_deliveries d JOIN notification_events e ON e.id = d.event_id
          WHERE d.id = $1`,
        [d!.id],
      ),
    ).toEqual([`notification_deliveries_p${suffix}`, `notification_events_p${suffix}`]);
  });
});
