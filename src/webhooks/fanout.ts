import type { Queryable } from '../platform/db/db.js';
import { type ClaimedAttempt, type HostRoom, probationParams } from './deliveries.data.js';

/** Fan-out that claims no first attempt: every delivery is left due, for any process. */
export const NO_ROOM: HostRoom = {
  holding: new Map(),
  heldPerHost: 0,
  accountHolding: new Map(),
  heldPerAccount: 0,
  perHost: 1,
  roundMs: 0,
  marginMs: 0,
};

export interface FanOutResult {
  facts: number;
  deliveries: number;
  /** First attempts claimed for the caller (in each host's queue order), to be run at once. */
  claimed: ClaimedAttempt[];
}

type Row = ClaimedAttempt & { facts: number | null; deliveries: number | null };

/**
 * Turns the oldest facts waiting in notification_outbox (at most `limit`, recorded at least `minAgeMs` ago)
 * into deliveries, in one statement: one per (fact, subscribed live webhook) and one for the fact's postback.
 * Within `room` (its host's, then its account's), and at most `maxClaims` in all (a fact may have several
 * targets), a delivery's first attempt is claimed for the caller (no ticket, attempt 1, leased like a claim);
 * the others are due at once, for any process. A host that already has due attempts waiting (a receiver
 * slower than its facts, retries due) gets no claim here: its new deliveries queue behind the old ones, which
 * claims serve oldest first (fresh facts taking every slot it freed starved that backlog). The statement
 * deletes the facts' outbox rows, locked first (rows another process is fanning out are skipped, never waited
 * for), so a fact is fanned out once; the unique indexes back that up. `queue` should carry QUEUE_SETTINGS
 * (index walks, no bitmap scans).
 */
export async function fanOutPending(
  queue: Queryable,
  limit: number,
  room: HostRoom = NO_ROOM,
  minAgeMs = 0,
  maxClaims = Number.MAX_SAFE_INTEGER,
): Promise<FanOutResult> {
  // facts and the rows claimed are looked up by primary key (joining two CTEs ran as a nested loop of both)
  const rows = await queue.query<Row>(
    `WITH o AS (
       DELETE FROM notification_outbox
        WHERE seq = ANY (ARRAY(
                SELECT seq FROM notification_outbox
                 WHERE created_at <= now() - make_interval(secs => $8::double precision / 1000)
                 ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED))
        RETURNING event_id),
     f AS (
       SELECT id, account_id, event_type, created_at, postback_url, postback_host FROM notification_events
        WHERE id = ANY (ARRAY(SELECT event_id FROM o))),
     targets AS (
       SELECT f.id AS event_id, f.account_id, w.id AS webhook_id, 'webhook' AS kind, w.target_host, f.created_at,
              w.status = 'disabled' AS skipped
         FROM f JOIN webhooks w ON w.account_id = f.account_id AND w.deleted_at IS NULL
        WHERE f.event_type = ANY (w.events) OR ('*' = ANY (w.events) AND f.event_type NOT LIKE 'cart.%' AND f.event_type NOT LIKE 'dispute.%' AND f.event_type NOT LIKE 'anticipation.%' AND f.event_type NOT LIKE 'subscription.%' AND f.event_type NOT LIKE 'invoice.%')
       UNION ALL
       SELECT f.id, f.account_id, NULL, 'postback', coalesce(f.postback_host, 'invalid'), f.created_at, false
         FROM f WHERE f.postback_url IS NOT NULL),
     placed AS (
       SELECT t.*, NOT (t.target_host = ANY ($13::text[])) AS probe,
              coalesce(r.holding, 0)
                   + row_number() OVER (PARTITION BY t.target_host, t.skipped
                                        ORDER BY t.created_at, t.event_id, t.webhook_id)
                   AS pos
         FROM targets t LEFT JOIN unnest($2::text[], $3::int[]) AS r(host, holding) ON r.host = t.target_host),
     -- one index probe per host: as EXISTS the planner, trusting a queue's stale statistics, made it a semi join
     -- over every due row (~400 ms at 200,000 due); a scalar subquery with LIMIT stays a probe
     backlogged AS MATERIALIZED (
       SELECT h.target_host FROM (SELECT DISTINCT target_host FROM targets) h
        WHERE (SELECT 1 FROM notification_deliveries d
                WHERE d.target_host = h.target_host AND d.status = 'PENDING' AND d.ticket IS NOT NULL
                  AND d.next_attempt_at <= now() LIMIT 1) IS NOT NULL),
     hosted AS (
       SELECT p.*, NOT p.skipped AND p.pos <= CASE WHEN p.probe THEN $14::int ELSE $4::int END
                   AND p.target_host NOT IN (SELECT target_host FROM backlogged) AS host_room
         FROM placed p),
     accounted AS (
       SELECT h.*, h.host_room
                   AND coalesce(a.holding, 0)
                       + count(*) FILTER (WHERE h.host_room)
                           OVER (PARTITION BY h.account_id ORDER BY h.created_at, h.event_id, h.webhook_id)
                       <= $12 AS room
         FROM hosted h LEFT JOIN unnest($10::bigint[], $11::int[]) AS a(account_id, holding)
              ON a.account_id = h.account_id),
     -- hosts of unknown speed (probation): together at most the probe share's room
     probed AS (
       SELECT a.*, a.room AND (NOT a.probe OR count(*) FILTER (WHERE a.room AND a.probe)
                                              OVER (ORDER BY a.created_at, a.event_id, a.webhook_id) <= $15)
                   AS room2
         FROM accounted a),
     capped AS (
       SELECT a.*, a.room2 AND count(*) FILTER (WHERE a.room2)
                                 OVER (ORDER BY a.created_at, a.event_id, a.webhook_id) <= $9 AS claim
         FROM probed a),
     ins AS (
       -- a disabled webhook's delivery is logged SKIPPED, never attempted (recover can send it later)
       INSERT INTO notification_deliveries
         (id, event_id, account_id, webhook_id, kind, target_host, status, error, ticket, next_attempt_at, attempts,
          last_attempt_at, lease_until)
       SELECT notification_delivery_id(event_id), event_id, account_id, webhook_id, kind, target_host,
              CASE WHEN skipped THEN 'SKIPPED' ELSE 'PENDING' END,
              NULL,
              CASE WHEN NOT claim AND NOT skipped THEN gen_random_uuid() END,
              CASE WHEN NOT skipped THEN now() END,
              CASE WHEN claim THEN 1 ELSE 0 END,
              CASE WHEN claim THEN now() END,
              CASE WHEN claim
                   THEN now() + make_interval(secs => (ceil(pos::numeric / $5) * $6 + $7)::double precision / 1000)
              END
         FROM capped ORDER BY created_at, event_id, webhook_id
       ON CONFLICT DO NOTHING
       RETURNING id, kind, attempts, event_id, account_id, webhook_id, target_host)
     SELECT ins.id, ins.kind, 1 AS attempt, false AS redelivery, false AS "resentInSchedule", false AS interrupted,
            false AS "webhookDisabled",
            ins.target_host AS "targetHost",
            ins.account_id AS "accountId",
            e.id AS "eventId", e.event_type AS "eventType", e.webhook_body AS "webhookBody",
            e.postback_url AS "postbackUrl", e.postback_body AS "postbackBody",
            ins.webhook_id AS "webhookId", w.url AS "webhookUrl", w.secret_enc AS "secretEnc",
            false AS "webhookDeleted",
            NULL::int AS facts, NULL::int AS deliveries
       FROM ins
       JOIN notification_events e ON e.id = ins.event_id
       LEFT JOIN webhooks w ON w.id = ins.webhook_id
      WHERE ins.attempts = 1
     UNION ALL
     SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
            (SELECT count(*)::int FROM o), (SELECT count(*)::int FROM ins)
     ORDER BY 1`,
    [
      limit,
      [...room.holding.keys()],
      [...room.holding.values()],
      room.heldPerHost,
      room.perHost,
      room.roundMs,
      room.marginMs,
      minAgeMs,
      maxClaims,
      [...room.accountHolding.keys()],
      [...room.accountHolding.values()],
      room.heldPerAccount,
      ...probationParams(room),
    ],
    { prepare: 'webhooks_fan_out_v8' },
  );
  const summary = rows.pop();
  for (const row of rows) {
    row.id = Number(row.id);
    row.accountId = Number(row.accountId);
    if (row.webhookId !== null) row.webhookId = Number(row.webhookId);
  }
  return { facts: summary?.facts ?? 0, deliveries: summary?.deliveries ?? 0, claimed: rows };
}
