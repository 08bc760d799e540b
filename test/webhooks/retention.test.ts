/**
 * `gateway notifications prune`: notification history past a retention is deleted, finished deliveries with
 * their attempts and the facts nothing points at any more; pending work and anything recent stays.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fanOutPending } from '../../src/webhooks/fanout.js';
import { pruneNotifications } from '../../src/webhooks/retention.js';
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

describe('pruning notification history', () => {
  it('deletes old finished deliveries, their attempts and orphaned old facts; keeps pending and recent ones', async () => {
    const { db } = server.runtime.platform;
    const m = await createMerchant(server);
    await createWebhook(server, m, 'http://127.0.0.9:9/prune', ['sale.paid']);
    const silent = await createMerchant(server); // no webhook: its facts have no delivery at all
    const facts: string[] = [];
    for (let i = 0; i < 4; i++) facts.push(await recordFact(server, m.accountId, 'sale.paid'));
    const lone = await recordFact(server, silent.accountId, 'sale.paid');
    const recentLone = await recordFact(server, silent.accountId, 'sale.paid');
    await fanOutPending(db, 100);
    const deliveries = await db.query<{ id: number; event_id: string }>(
      `SELECT id, event_id FROM notification_deliveries WHERE account_id = $1 ORDER BY id`,
      [m.accountId],
    );
    expect(deliveries).toHaveLength(4);
    // 0: old and delivered; 1: old and failed; 2: old and still pending; 3: recent and delivered
    const [delivered, failed, pending, recent] = deliveries.map((d) => d.id) as [
      number,
      number,
      number,
      number,
    ];
    await db.query(`UPDATE notification_deliveries SET status = 'DELIVERED' WHERE id = ANY ($1::bigint[])`, [
      [delivered, recent],
    ]);
    await db.query(`UPDATE notification_deliveries SET status = 'FAILED' WHERE id = $1`, [failed]);
    for (const id of [delivered, failed, recent]) {
      await db.query(
        `INSERT INTO notification_attempts (delivery_id, attempt, event_type, url, redelivery, status_code, duration_ms)
         VALUES ($1, 1, 'sale.paid', 'http://127.0.0.9:9/prune', false, 200, 5)`,
        [id],
      );
    }
    const aged = [delivered, failed, pending];
    await db.query(
      `UPDATE notification_deliveries SET created_at = now() - interval '40 days' WHERE id = ANY ($1::bigint[])`,
      [aged],
    );
    await db.query(
      `UPDATE notification_events SET created_at = now() - interval '40 days' WHERE id = ANY ($1::uuid[])`,
      [[...facts.slice(0, 3), lone]],
    );

    const pruned = await pruneNotifications(db, new Date(Date.now() - 30 * 86_400_000));
    expect(pruned).toMatchObject({ deliveries: 2, attempts: 2, facts: 3 });
    const left = await db.query<{ id: number }>(
      'SELECT id FROM notification_deliveries WHERE account_id = $1 ORDER BY id',
      [m.accountId],
    );
    expect(left.map((d) => d.id)).toEqual([pending, recent]);
    const events = await db.query<{ id: string }>(
      'SELECT id FROM notification_events WHERE id = ANY ($1::uuid[])',
      [[...facts, lone, recentLone]],
    );
    // the pending delivery's fact, the recent one's, and the recent fact without deliveries stay
    expect(events.map((e) => e.id).sort()).toEqual([facts[2], facts[3], recentLone].sort());
    // a second run finds nothing more
    expect(await pruneNotifications(db, new Date(Date.now() - 30 * 86_400_000))).toMatchObject({
      deliveries: 0,
      attempts: 0,
      facts: 0,
    });
  });

  it('keeps every event at least 30 days, however short the retention asked', async () => {
    const { db } = server.runtime.platform;
    const m = await createMerchant(server);
    const young = await recordFact(server, m.accountId, 'sale.paid');
    const old = await recordFact(server, m.accountId, 'sale.paid');
    await db.query(`UPDATE notification_events SET created_at = now() - interval '29 days' WHERE id = $1`, [
      young,
    ]);
    await db.query(`UPDATE notification_events SET created_at = now() - interval '31 days' WHERE id = $1`, [
      old,
    ]);
    await fanOutPending(db, 1000);
    await pruneNotifications(db, new Date(Date.now() - 86_400_000));
    const left = await db.query<{ id: string }>(
      'SELECT id FROM notification_events WHERE id = ANY ($1::uuid[])',
      [[young, old]],
    );
    expect(left.map((e) => e.id)).toEqual([young]);
  });
});
