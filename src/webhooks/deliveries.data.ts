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
  /** targetGroup of the URL this attempt goes to. */
  group: string;
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
  const rows = await db.query<Omit<ClaimedAttempt, 'group'>>(
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
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    group: targetGroup((r.kind === 'webhook' ? r.webhookUrl : r.postbackUrl) ?? ''),
  }));
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

/**
 * Logs attempts and moves their deliveries to the next state, many in one statement. A delivery whose ticket
 * was set meanwhile (a manual resend) or whose attempt count moved on is left to that newer attempt.
 */
export async function recordAttempts(
  db: Queryable,
  items: readonly { record: AttemptRecord; next: NextStep }[],
): Promise<void> {
  if (items.length === 0) return;
  const col = <T>(f: (i: { record: AttemptRecord; next: NextStep }) => T) => items.map(f);
  await db.query(
    `WITH input AS (
       SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[], $4::text[], $5::boolean[], $6::int[], $7::text[],
                            $8::int[], $9::text[], $10::uuid[], $11::int[])
         AS t(delivery_id, attempt, event_type, url, redelivery, status_code, error, duration_ms, status, ticket, delay_ms)),
     logged AS (
       INSERT INTO notification_attempts
         (delivery_id, attempt, event_type, url, redelivery, status_code, error, duration_ms)
       SELECT delivery_id, attempt, event_type, url, redelivery, status_code, error, duration_ms FROM input)
     UPDATE notification_deliveries d
        SET status = i.status, status_code = i.status_code, error = i.error, lease_until = NULL, ticket = i.ticket,
            next_attempt_at = CASE WHEN i.ticket IS NULL THEN NULL
                                   ELSE now() + make_interval(secs => i.delay_ms::double precision / 1000) END
       FROM input i
      WHERE d.id = i.delivery_id AND d.attempts = i.attempt AND d.ticket IS NULL`,
    [
      col((i) => i.record.deliveryId),
      col((i) => i.record.attempt),
      col((i) => i.record.eventType),
      col((i) => i.record.url),
      col((i) => i.record.redelivery),
      col((i) => i.record.statusCode),
      col((i) => i.record.error),
      col((i) => i.record.durationMs),
      col((i) => i.next.status),
      col((i) => (i.next.status === 'PENDING' ? i.next.ticket : null)),
      col((i) => (i.next.status === 'PENDING' ? i.next.delayMs : 0)),
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
