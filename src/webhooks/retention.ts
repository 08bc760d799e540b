import type { Db } from '../platform/db/db.js';

const CHUNK = 5000;

export interface PruneResult {
  before: string;
  attempts: number;
  deliveries: number;
  facts: number;
}

/** Events (the facts) are kept at least this long, whatever a prune asks (at least 30 days). */
export const MIN_EVENT_DAYS = 30;
/** How often the workers run the retention prune. */
export const RETENTION_EVERY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes notification history older than `before`: finished deliveries (DELIVERED, FAILED, SKIPPED) with
 * their attempts, then facts left with no delivery and no place in the outbox, never one younger than
 * MIN_EVENT_DAYS (a fact is the account's event). Pending deliveries and their
 * facts stay, whatever their age. In chunks of 5,000, each its own transaction, so the money paths never wait
 * behind one long delete; run it again after an interruption. What it deletes can no longer be resent or
 * recovered from the panel.
 */
export async function pruneNotifications(db: Db, before: Date): Promise<PruneResult> {
  const result: PruneResult = { before: before.toISOString(), attempts: 0, deliveries: 0, facts: 0 };
  for (;;) {
    const [chunk] = await db.tx((tx) =>
      tx.query<{ attempts: number; deliveries: number }>(
        `WITH d AS (
           SELECT id FROM notification_deliveries
            WHERE created_at < $1 AND status <> 'PENDING' ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED),
         a AS (DELETE FROM notification_attempts WHERE delivery_id IN (SELECT id FROM d) RETURNING 1),
         gone AS (DELETE FROM notification_deliveries WHERE id IN (SELECT id FROM d) RETURNING 1)
         SELECT (SELECT count(*) FROM a)::int AS attempts, (SELECT count(*) FROM gone)::int AS deliveries`,
        [before, CHUNK],
      ),
    );
    result.attempts += chunk!.attempts;
    result.deliveries += chunk!.deliveries;
    if (chunk!.deliveries < CHUNK) break;
  }
  // facts: one pass over the primary key, older ones with nothing left pointing at them
  const eventsKeptFrom = new Date(Date.now() - MIN_EVENT_DAYS * 86_400_000);
  const factsBefore = before < eventsKeptFrom ? before : eventsKeptFrom;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const [chunk] = await db.query<{ deleted: number; last: string | null }>(
      `WITH page AS (
         SELECT id, created_at FROM notification_events WHERE id > $1::uuid ORDER BY id LIMIT $3),
       old AS (
         SELECT p.id FROM page p
          WHERE p.created_at < $2
            -- one probe per unique index (webhook deliveries, the postback), each a partial index whose
            -- predicate the probe must state to use it
            AND NOT EXISTS (SELECT 1 FROM notification_deliveries d
                             WHERE d.event_id = p.id AND d.webhook_id IS NOT NULL)
            AND NOT EXISTS (SELECT 1 FROM notification_deliveries d WHERE d.event_id = p.id AND d.webhook_id IS NULL)
            AND p.id NOT IN (SELECT event_id FROM notification_outbox)),
       gone AS (DELETE FROM notification_events WHERE id IN (SELECT id FROM old) RETURNING 1)
       SELECT (SELECT count(*) FROM gone)::int AS deleted, (SELECT max(id::text) FROM page) AS last`,
      [after, factsBefore, CHUNK],
    );
    result.facts += chunk!.deleted;
    if (chunk!.last === null) break;
    after = chunk!.last;
  }
  return result;
}
