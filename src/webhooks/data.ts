import type { Queryable } from '../platform/db.js';
import type { EncryptedSecret } from './crypto.js';

export interface WebhookRow {
  id: number;
  url: string;
  events: string[];
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
  status: 'PENDING' | 'DELIVERED' | 'FAILED';
  created_at: Date;
  last_attempt_at: Date | null;
}

const COLUMNS = 'id, url, events, created_at';

export async function insertWebhook(
  db: Queryable,
  accountId: number,
  url: string,
  events: string[],
  secret: EncryptedSecret,
): Promise<WebhookRow> {
  const [row] = await db.query<WebhookRow>(
    `INSERT INTO webhooks (account_id, url, events, secret_enc) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
    [accountId, url, events, secret],
  );
  return row!;
}

export async function listWebhooks(db: Queryable, accountId: number): Promise<WebhookRow[]> {
  return db.query<WebhookRow>(
    `SELECT ${COLUMNS} FROM webhooks WHERE account_id = $1 AND deleted_at IS NULL ORDER BY id DESC`,
    [accountId],
  );
}

export async function findWebhook(db: Queryable, accountId: number, id: number): Promise<WebhookRow | null> {
  const [row] = await db.query<WebhookRow>(
    `SELECT ${COLUMNS} FROM webhooks WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL`,
    [id, accountId],
  );
  return row ?? null;
}

export async function updateWebhook(
  db: Queryable,
  accountId: number,
  id: number,
  changes: { url?: string; events?: string[] },
): Promise<WebhookRow | null> {
  const [row] = await db.query<WebhookRow>(
    `UPDATE webhooks SET url = coalesce($3, url), events = coalesce($4, events), updated_at = now()
      WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL
      RETURNING ${COLUMNS}`,
    [id, accountId, changes.url ?? null, changes.events ?? null],
  );
  return row ?? null;
}

export async function deleteWebhook(db: Queryable, accountId: number, id: number): Promise<boolean> {
  const rows = await db.query(
    `UPDATE webhooks SET deleted_at = now() WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL RETURNING id`,
    [id, accountId],
  );
  return rows.length > 0;
}

const DELIVERY_COLUMNS = `d.id, d.event_id, e.event_type, e.webhook_body, d.status_code, d.attempts, d.error,
  d.status, d.created_at, d.last_attempt_at`;

export async function listDeliveries(
  db: Queryable,
  webhookId: number,
  limit: number,
): Promise<DeliveryRow[]> {
  return db.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS}
       FROM notification_deliveries d JOIN notification_events e ON e.id = d.event_id
      WHERE d.webhook_id = $1 ORDER BY d.id DESC LIMIT $2`,
    [webhookId, limit],
  );
}

/**
 * Schedules a manual redelivery of an account's webhook delivery: a new ticket supersedes any scheduled retry,
 * and an attempt still in flight no longer moves the delivery when it ends (recordAttempt needs a null ticket).
 */
export async function markForResend(
  db: Queryable,
  accountId: number,
  deliveryId: number,
  ticket: string,
): Promise<{ row: DeliveryRow; url: string } | null> {
  const [row] = await db.query<DeliveryRow & { url: string }>(
    `WITH u AS (
       UPDATE notification_deliveries d
          SET status = 'PENDING', redelivery = true, ticket = $3, next_attempt_at = now(), lease_until = NULL
         FROM webhooks w
        WHERE d.id = $1 AND w.id = d.webhook_id AND w.account_id = $2 AND w.deleted_at IS NULL
        RETURNING d.*, w.url)
     SELECT ${DELIVERY_COLUMNS}, d.url FROM u d JOIN notification_events e ON e.id = d.event_id`,
    [deliveryId, accountId, ticket],
  );
  return row ? { row, url: row.url } : null;
}
