import { lockForTransaction } from '../platform/db/advisory-lock.js';
import type { Queryable } from '../platform/db/db.js';
import { rowOrNull } from '../platform/sql/row-or-null.js';
import type { EncryptedSecret } from './crypto.js';
import { targetGroup } from './deliveries.data.js';

export interface WebhookRow {
  id: number;
  url: string;
  events: string[];
  status: 'active' | 'disabled';
  disabled_reason: string | null;
  created_at: Date;
}

export interface DeliveryRow {
  id: number;
  event_id: string;
  event_type: string;
  webhook_body: string;
  status_code: number | null;
  attempts: number;
  error: string | null;
  status: 'PENDING' | 'DELIVERED' | 'FAILED' | 'SKIPPED';
  created_at: Date;
  last_attempt_at: Date | null;
}

const COLUMNS = 'id, url, events, status, disabled_reason, created_at';

export async function insertWebhook(
  db: Queryable,
  accountId: number,
  url: string,
  events: string[],
  secret: EncryptedSecret,
): Promise<WebhookRow> {
  const [row] = await db.query<WebhookRow>(
    `INSERT INTO webhooks (account_id, url, target_host, events, secret_enc) VALUES ($1, $2, $3, $4, $5)
     RETURNING ${COLUMNS}`,
    [accountId, url, targetGroup(url), events, secret],
  );
  return row!;
}

/** The account's live webhooks, counted under its webhooks lock: concurrent creations are checked one by one. */
export async function lockAndCountWebhooks(tx: Queryable, accountId: number): Promise<number> {
  await lockForTransaction(tx, 'webhooks', accountId);
  const [row] = await tx.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM webhooks WHERE account_id = $1 AND deleted_at IS NULL',
    [accountId],
  );
  return row!.n;
}

export async function listWebhooks(db: Queryable, accountId: number): Promise<WebhookRow[]> {
  return db.query<WebhookRow>(
    `SELECT ${COLUMNS} FROM webhooks WHERE account_id = $1 AND deleted_at IS NULL ORDER BY id DESC`,
    [accountId],
  );
}

export async function findWebhook(db: Queryable, accountId: number, id: number): Promise<WebhookRow | null> {
  return rowOrNull<WebhookRow>(
    db,
    `SELECT ${COLUMNS} FROM webhooks WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL`,
    [id, accountId],
  );
}

export async function updateWebhook(
  db: Queryable,
  accountId: number,
  id: number,
  changes: { url?: string; events?: string[] },
): Promise<WebhookRow | null> {
  // Pending deliveries follow the new URL (the claim reads it), so their per-host accounting follows too.
  return rowOrNull<WebhookRow>(
    db,
    `WITH w AS (
       UPDATE webhooks SET url = coalesce($3, url), target_host = coalesce($5, target_host),
              events = coalesce($4, events), updated_at = now()
        WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL
        RETURNING ${COLUMNS}),
     d AS (
       UPDATE notification_deliveries SET target_host = $5
        WHERE $5::text IS NOT NULL AND webhook_id IN (SELECT id FROM w) AND status = 'PENDING')
     SELECT * FROM w`,
    [
      id,
      accountId,
      changes.url ?? null,
      changes.events ?? null,
      changes.url ? targetGroup(changes.url) : null,
    ],
  );
}

/**
 * Deletes a webhook and settles its queued deliveries in the same statement: nothing more is sent to it. An
 * attempt already claimed (in flight) is left to the worker, which checks the webhook before sending.
 */
export async function deleteWebhook(db: Queryable, accountId: number, id: number): Promise<boolean> {
  const rows = await db.query(
    `WITH w AS (
       UPDATE webhooks SET deleted_at = now() WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL RETURNING id),
     d AS (
       UPDATE notification_deliveries
          SET status = 'FAILED', ticket = NULL, next_attempt_at = NULL,
              error = 'webhook deleted before delivery; nothing sent'
        WHERE webhook_id IN (SELECT id FROM w) AND status = 'PENDING' AND ticket IS NOT NULL)
     SELECT id FROM w`,
    [id, accountId],
  );
  return rows.length > 0;
}

const DELIVERY_COLUMNS = `d.id, d.event_id, e.event_type, e.webhook_body, d.status_code, d.attempts, d.error,
  d.status, d.created_at, d.last_attempt_at`;

/** What one page of a delivery log may carry in payloads (besides `limit`): docs/webhooks.md, Delivery log. */
export const DELIVERY_PAGE_BYTES = 256 * 1024;

/**
 * The latest deliveries of a webhook, newest first: at most `limit`, and no more than DELIVERY_PAGE_BYTES of
 * payloads (always at least one entry), cut in the query so large bodies beyond the page are never sent here.
 */
export async function listDeliveries(
  db: Queryable,
  webhookId: number,
  limit: number,
): Promise<DeliveryRow[]> {
  return db.query<DeliveryRow>(
    `WITH page AS (
       SELECT d.id, d.event_id, sum(octet_length(e.webhook_body)) OVER (ORDER BY d.id DESC) AS running
         FROM notification_deliveries d JOIN notification_events e ON e.id = d.event_id
        WHERE d.webhook_id = $1 ORDER BY d.id DESC LIMIT $2)
     SELECT ${DELIVERY_COLUMNS}
       FROM page p
       JOIN notification_deliveries d ON d.id = p.id
       JOIN notification_events e ON e.id = d.event_id
      WHERE p.running <= $3 OR p.id = (SELECT max(id) FROM page)
      ORDER BY d.id DESC`,
    [webhookId, limit, DELIVERY_PAGE_BYTES],
  );
}

/**
 * Schedules a manual redelivery of an account's webhook delivery, due at once: a new ticket supersedes any
 * scheduled retry, and an attempt still in flight no longer moves the delivery when it ends (recordAttempts
 * needs a null ticket). A delivery still owed an automatic retry keeps it should the resend fail
 * (`resent_in_schedule`). Null when the delivery is not the account's.
 */
export async function markForResend(
  db: Queryable,
  accountId: number,
  deliveryId: number,
): Promise<DeliveryRow | 'disabled' | null> {
  // the webhook row is share-locked first, so a disable waits for this resend (and then skips it) or wins
  const [row] = await db.query<DeliveryRow & { webhook_status: 'active' | 'disabled' }>(
    `WITH w AS (
       SELECT w.id, w.status FROM webhooks w JOIN notification_deliveries d ON d.webhook_id = w.id
        WHERE d.id = $1 AND w.account_id = $2 AND w.deleted_at IS NULL
          FOR SHARE OF w),
     u AS (
       UPDATE notification_deliveries d
          SET status = 'PENDING', redelivery = true, ticket = gen_random_uuid(), next_attempt_at = now(),
              lease_until = NULL, interrupted = false,
              -- still owed an automatic retry: the resend takes its place, and a failed one leaves the schedule on
              -- (a resend asked again before it was sent keeps what the first found)
              resent_in_schedule = CASE WHEN d.redelivery AND d.status = 'PENDING' THEN d.resent_in_schedule
                                        ELSE d.status = 'PENDING' END
         FROM w
        WHERE d.id = $1 AND w.id = d.webhook_id AND w.status = 'active'
        RETURNING d.*)
     SELECT ${DELIVERY_COLUMNS}, w.status AS webhook_status
       FROM w LEFT JOIN (u d JOIN notification_events e ON e.id = d.event_id) ON true`,
    [deliveryId, accountId],
  );
  if (!row) return null;
  return row.webhook_status === 'disabled' ? 'disabled' : row;
}

/** The newest live webhook's sealed secret (the process checks at start that its key opens it). */
export async function newestSealedSecret(q: Queryable): Promise<{ what: string; sealed: string } | null> {
  return rowOrNull<{ what: string; sealed: string }>(
    q,
    `SELECT 'webhook ' || id AS what, secret_enc AS sealed FROM webhooks
      WHERE deleted_at IS NULL ORDER BY id DESC LIMIT 1`,
  );
}
