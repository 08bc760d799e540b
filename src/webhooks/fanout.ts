import type { Db, Queryable } from '../platform/db.js';
import { targetGroup } from './deliveries.data.js';

/**
 * Turns recorded facts into deliveries, due at once: one per (fact, subscribed live webhook) and one for the
 * fact's postback, in one transaction. Claiming the facts by setting fanned_out_at makes a repeated or
 * concurrent fan-out of the same fact a no-op; the unique indexes back it up. Returns the deliveries created.
 */
export async function fanOut(db: Db, eventIds: readonly string[]): Promise<number> {
  if (eventIds.length === 0) return 0;
  return db.tx(async (tx) => {
    // "(… IS NULL) IS TRUE" rather than "… IS NULL": the plain form matches the pending-facts index's
    // predicate, and the planner then walked that whole index (every fact not yet fanned out, plus the dead
    // entries of those that were) instead of looking the ids up by primary key
    const claimed = await tx.query<Claimed>(
      `UPDATE notification_events SET fanned_out_at = now()
        WHERE id = ANY($1::uuid[]) AND (fanned_out_at IS NULL) IS TRUE
        RETURNING id, postback_url`,
      [eventIds],
    );
    return createDeliveries(tx, claimed);
  });
}

/**
 * Fans out the oldest facts not fanned out yet, at most `limit`, in one transaction; facts another process is
 * fanning out right now are skipped (their rows are locked), never waited for. Returns how many facts it took.
 */
export async function fanOutPending(db: Db, limit: number): Promise<{ facts: number; deliveries: number }> {
  return db.tx(async (tx) => {
    // an ordered walk of the pending-facts index that stops after `limit`; the bitmap scan the planner picks
    // on a young table read and sorted the whole backlog (18,000 facts for 500) on every batch
    await tx.query(`SELECT set_config('enable_bitmapscan', 'off', true)`);
    const claimed = await tx.query<Claimed>(
      `UPDATE notification_events SET fanned_out_at = now()
        WHERE id = ANY (ARRAY(
                SELECT id FROM notification_events WHERE fanned_out_at IS NULL
                 ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED))
          AND (fanned_out_at IS NULL) IS TRUE
        RETURNING id, postback_url`,
      [limit],
    );
    return { facts: claimed.length, deliveries: await createDeliveries(tx, claimed) };
  });
}

interface Claimed {
  id: string;
  postback_url: string | null;
}

async function createDeliveries(tx: Queryable, claimed: Claimed[]): Promise<number> {
  if (claimed.length === 0) return 0;
  const postbacks = claimed.filter((c) => c.postback_url !== null);
  const rows = await tx.query<{ id: number }>(
    `INSERT INTO notification_deliveries (event_id, webhook_id, kind, target_host, ticket, next_attempt_at)
       SELECT e.id, w.id, 'webhook', w.target_host, gen_random_uuid(), now()
         FROM notification_events e
         JOIN webhooks w ON w.account_id = e.account_id AND w.deleted_at IS NULL
        WHERE e.id = ANY($1::uuid[])
          AND (e.event_type = ANY (w.events) OR ('*' = ANY (w.events) AND e.event_type NOT LIKE 'cart.%'))
       UNION ALL
       SELECT p.id, NULL, 'postback', p.host, gen_random_uuid(), now()
         FROM unnest($2::uuid[], $3::text[]) AS p(id, host)
       ON CONFLICT DO NOTHING
       RETURNING id`,
    [
      claimed.map((c) => c.id),
      postbacks.map((p) => p.id),
      postbacks.map((p) => targetGroup(p.postback_url ?? '')),
    ],
  );
  return rows.length;
}
