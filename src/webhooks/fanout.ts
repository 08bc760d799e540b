import type { Db } from '../platform/db.js';
import type { Queue } from '../platform/queue.js';
import { targetGroup } from './deliveries.data.js';

/**
 * Turns recorded facts into deliveries: one per (fact, subscribed live webhook) and one for the fact's
 * postback, each with its first attempt enqueued, all in one transaction. Claiming the facts by setting
 * fanned_out_at makes a repeated or concurrent fan-out of the same fact a no-op; the unique indexes back it up.
 */
export async function fanOut(db: Db, queue: Queue, eventIds: readonly string[]): Promise<number> {
  if (eventIds.length === 0) return 0;
  return db.tx(async (tx) => {
    const claimed = await tx.query<{ id: string }>(
      `UPDATE notification_events SET fanned_out_at = now()
        WHERE id = ANY($1::uuid[]) AND fanned_out_at IS NULL
        RETURNING id`,
      [eventIds],
    );
    if (claimed.length === 0) return 0;
    const rows = await tx.query<{ id: number; ticket: string; url: string }>(
      `WITH ins AS (
         INSERT INTO notification_deliveries (event_id, webhook_id, kind, ticket, next_attempt_at)
         SELECT e.id, w.id, 'webhook', gen_random_uuid(), now()
           FROM notification_events e
           JOIN webhooks w ON w.account_id = e.account_id AND w.deleted_at IS NULL
          WHERE e.id = ANY($1::uuid[])
            AND (e.event_type = ANY (w.events) OR ('*' = ANY (w.events) AND e.event_type NOT LIKE 'cart.%'))
         UNION ALL
         SELECT e.id, NULL, 'postback', gen_random_uuid(), now()
           FROM notification_events e
          WHERE e.id = ANY($1::uuid[]) AND e.postback_url IS NOT NULL
         ON CONFLICT DO NOTHING
         RETURNING id, ticket, event_id, webhook_id)
       SELECT ins.id, ins.ticket, coalesce(w.url, e.postback_url) AS url
         FROM ins
         JOIN notification_events e ON e.id = ins.event_id
         LEFT JOIN webhooks w ON w.id = ins.webhook_id`,
      [claimed.map((c) => c.id)],
    );
    await queue.sendMany(
      tx,
      'notifications.deliver',
      rows.map((r) => ({
        data: { deliveryId: Number(r.id), ticket: r.ticket },
        options: { group: targetGroup(r.url) },
      })),
    );
    return rows.length;
  });
}
