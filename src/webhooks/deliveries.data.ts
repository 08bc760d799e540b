import type { Queryable } from '../platform/db.js';

/** One claimed attempt: everything needed to send it. */
export interface ClaimedAttempt {
  id: number;
  kind: 'webhook' | 'postback';
  attempt: number;
  redelivery: boolean;
  eventId: string;
  eventType: string;
  webhookBody: string;
  postbackUrl: string | null;
  postbackBody: string | null;
  webhookUrl: string | null;
  secretEnc: string | null;
  webhookDeleted: boolean;
}

/** pg-boss group of a target: its host and port, so concurrency is bounded per receiving server. */
export function targetGroup(url: string): string {
  try {
    return new URL(url).host || 'invalid';
  } catch {
    return 'invalid';
  }
}

/**
 * Claims the next attempt of each (delivery, ticket): clears the ticket, counts the attempt and sets a lease.
 * A ticket that no longer matches (already claimed by another worker, superseded by a resend) claims nothing.
 */
export async function claimAttempts(
  db: Queryable,
  jobs: readonly { deliveryId: number; ticket: string }[],
  leaseMs: number,
): Promise<ClaimedAttempt[]> {
  if (jobs.length === 0) return [];
  return db.query<ClaimedAttempt>(
    `WITH c AS (
       UPDATE notification_deliveries d
          SET ticket = NULL, attempts = d.attempts + 1, last_attempt_at = now(),
              lease_until = now() + make_interval(secs => $3::double precision / 1000)
        WHERE (d.id, d.ticket) IN (SELECT * FROM unnest($1::bigint[], $2::uuid[]))
        RETURNING d.id, d.kind, d.attempts, d.redelivery, d.event_id, d.webhook_id)
     SELECT c.id, c.kind, c.attempts AS attempt, c.redelivery, e.id AS "eventId", e.event_type AS "eventType",
            e.webhook_body AS "webhookBody", e.postback_url AS "postbackUrl", e.postback_body AS "postbackBody",
            w.url AS "webhookUrl", w.secret_enc AS "secretEnc", (w.deleted_at IS NOT NULL) AS "webhookDeleted"
       FROM c
       JOIN notification_events e ON e.id = c.event_id
       LEFT JOIN webhooks w ON w.id = c.webhook_id`,
    [jobs.map((j) => j.deliveryId), jobs.map((j) => j.ticket), leaseMs],
  );
}

export interface AttemptRecord {
  deliveryId: number;
  attempt: number;
  eventType: string;
  url: string;
  redelivery: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export type NextStep =
  | { status: 'DELIVERED' | 'FAILED' }
  | { status: 'PENDING'; ticket: string; delayMs: number };

/** Logs the attempt and moves the delivery to its next state, in one statement. */
export async function recordAttempt(db: Queryable, a: AttemptRecord, next: NextStep): Promise<void> {
  await db.query(
    `WITH logged AS (
       INSERT INTO notification_attempts
         (delivery_id, attempt, event_type, url, redelivery, status_code, error, duration_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8))
     UPDATE notification_deliveries
        SET status = $9, status_code = $6, error = $7, lease_until = NULL, ticket = $10,
            next_attempt_at = CASE WHEN $10::uuid IS NULL THEN NULL
                                   ELSE now() + make_interval(secs => $11::double precision / 1000) END
      WHERE id = $1 AND attempts = $2 AND ticket IS NULL`,
    [
      a.deliveryId,
      a.attempt,
      a.eventType,
      a.url,
      a.redelivery,
      a.statusCode,
      a.error,
      a.durationMs,
      next.status,
      next.status === 'PENDING' ? next.ticket : null,
      next.status === 'PENDING' ? next.delayMs : 0,
    ],
  );
}

/** A delivery whose webhook was deleted before the attempt: nothing is sent, the claim is undone. */
export async function abandonDeleted(db: Queryable, deliveryId: number): Promise<void> {
  await db.query(
    `UPDATE notification_deliveries
        SET status = 'FAILED', attempts = attempts - 1, lease_until = NULL, ticket = NULL,
            error = 'webhook deleted before delivery; nothing sent'
      WHERE id = $1`,
    [deliveryId],
  );
}
