import type { Queryable } from '../platform/db/db.js';
import type { EncryptedSecret } from './crypto.js';
import { newEventId, withEventType } from './outbox.js';

/** Replaces a webhook's sealed signing keys (a rotation). False when it is not the account's. */
export async function replaceKeys(
  tx: Queryable,
  accountId: number,
  id: number,
  sealed: EncryptedSecret,
): Promise<boolean> {
  const rows = await tx.query(
    `UPDATE webhooks SET secret_enc = $3, updated_at = now()
      WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL RETURNING id`,
    [id, accountId, sealed],
  );
  return rows.length === 1;
}

/** The current sealed keys, locked (a rotation reads the secret it demotes). */
export async function lockKeys(tx: Queryable, accountId: number, id: number): Promise<string | null> {
  const [row] = await tx.query<{ secret_enc: string }>(
    'SELECT secret_enc FROM webhooks WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL FOR UPDATE',
    [id, accountId],
  );
  return row?.secret_enc ?? null;
}

/** The webhook's status, its row share-locked so a disable waits for the caller's transaction; null if gone. */
export async function lockStatus(
  tx: Queryable,
  accountId: number,
  id: number,
): Promise<'active' | 'disabled' | null> {
  const [row] = await tx.query<{ status: 'active' | 'disabled' }>(
    'SELECT status FROM webhooks WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL FOR SHARE',
    [id, accountId],
  );
  return row?.status ?? null;
}

/**
 * A test event for one webhook: a fact of its own (event `webhook.test`) and a delivery to that webhook only,
 * due at once; signed, attempted and logged like any other.
 */
export async function enqueueTest(
  tx: Queryable,
  accountId: number,
  webhookId: number,
  body: object,
): Promise<string> {
  const id = newEventId();
  await tx.query(
    `WITH e AS (
       INSERT INTO notification_events (id, account_id, event_type, subject_type, subject_id, webhook_body)
       VALUES ($1, $2, 'webhook.test', 'webhook', $3, $4) RETURNING id)
     INSERT INTO notification_deliveries
       (id, event_id, account_id, webhook_id, kind, target_host, status, error, ticket, next_attempt_at)
     SELECT notification_delivery_id(e.id), e.id, w.account_id, w.id, 'webhook', w.target_host,
            CASE WHEN w.status = 'disabled' THEN 'SKIPPED' ELSE 'PENDING' END,
            NULL,
            CASE WHEN w.status <> 'disabled' THEN gen_random_uuid() END,
            CASE WHEN w.status <> 'disabled' THEN now() END
       FROM e, webhooks w
      WHERE w.id = $3`,
    [id, accountId, webhookId, JSON.stringify(withEventType(body, 'webhook.test'))],
  );
  return id;
}

/**
 * Every FAILED or SKIPPED delivery of the webhook created in [since, until) is due again as a manual resend
 * (same bytes and event id, `X-Service-Redelivery: true`). Returns how many.
 */
export async function recoverDeliveries(
  tx: Queryable,
  webhookId: number,
  since: Date,
  until: Date,
): Promise<number> {
  const rows = await tx.query(
    `UPDATE notification_deliveries
        SET status = 'PENDING', redelivery = true, ticket = gen_random_uuid(), next_attempt_at = now(),
            lease_until = NULL, interrupted = false, resent_in_schedule = false
      WHERE webhook_id = $1 AND status IN ('FAILED', 'SKIPPED') AND created_at >= $2 AND created_at < $3
      RETURNING 1`,
    [webhookId, since, until],
  );
  return rows.length;
}

export interface WebhookStats {
  delivered: number;
  failed: number;
  pending: number;
  successRate: number | null;
  p50Ms: number | null;
  p95Ms: number | null;
}

/** Deliveries created in the last `hours`: counts by status, and the receiver's response times. */
export async function webhookStats(q: Queryable, webhookId: number, hours: number): Promise<WebhookStats> {
  const [row] = await q.query<{
    delivered: number;
    failed: number;
    pending: number;
    p50: number | null;
    p95: number | null;
  }>(
    `WITH d AS (
       SELECT id, status FROM notification_deliveries
        WHERE webhook_id = $1 AND created_at >= now() - make_interval(hours => $2))
     SELECT count(*) FILTER (WHERE status = 'DELIVERED')::int AS delivered,
            count(*) FILTER (WHERE status = 'FAILED')::int AS failed,
            count(*) FILTER (WHERE status = 'PENDING')::int AS pending,
            (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY a.duration_ms)
               FROM notification_attempts a WHERE a.delivery_id IN (SELECT id FROM d)) AS p50,
            (SELECT percentile_cont(0.95) WITHIN GROUP (ORDER BY a.duration_ms)
               FROM notification_attempts a WHERE a.delivery_id IN (SELECT id FROM d)) AS p95
       FROM d`,
    [webhookId, hours],
  );
  const { delivered = 0, failed = 0, pending = 0, p50 = null, p95 = null } = row ?? {};
  const finished = delivered + failed;
  return {
    delivered,
    failed,
    pending,
    successRate: finished === 0 ? null : Math.round((delivered / finished) * 10000) / 10000,
    p50Ms: p50 === null ? null : Math.round(p50),
    p95Ms: p95 === null ? null : Math.round(p95),
  };
}

/**
 * Disables a live webhook and turns its queued deliveries SKIPPED (recover can send them later); an attempt
 * in flight finishes. Returns the account id, or null when it was not active.
 */
export async function disableWebhook(
  tx: Queryable,
  id: number,
  reason: string,
): Promise<{ accountId: number; url: string } | null> {
  const [row] = await tx.query<{ account_id: number; url: string }>(
    `WITH w AS (
       UPDATE webhooks SET status = 'disabled', disabled_reason = $2, updated_at = now()
        WHERE id = $1 AND status = 'active' AND deleted_at IS NULL RETURNING id, account_id, url),
     d AS (
       UPDATE notification_deliveries
          SET status = 'SKIPPED', ticket = NULL, next_attempt_at = NULL
        WHERE webhook_id IN (SELECT id FROM w) AND status = 'PENDING' AND ticket IS NOT NULL)
     SELECT account_id, url FROM w`,
    [id, reason],
  );
  return row ? { accountId: Number(row.account_id), url: row.url } : null;
}

export async function enableWebhook(tx: Queryable, id: number): Promise<void> {
  await tx.query(
    `UPDATE webhooks SET status = 'active', disabled_reason = NULL, enabled_at = now(), updated_at = now()
      WHERE id = $1 AND status = 'disabled'`,
    [id],
  );
}

/**
 * Active webhooks whose last `failures` attempted deliveries since they were (re-)enabled all failed, the
 * oldest of them at least `hours` ago, with no success since (decisions.md: WEBHOOK_DISABLE_AFTER_*). A
 * delivery counts as failed when its last attempt failed, retries pending or not.
 */
export async function failingWebhooks(
  q: Queryable,
  failures: number,
  hours: number,
): Promise<{ id: number; lastError: string | null }[]> {
  return q.query(
    `SELECT w.id, last.error AS "lastError"
       FROM webhooks w
       CROSS JOIN LATERAL (
         SELECT count(*) FILTER (WHERE d.status = 'FAILED' OR (d.status = 'PENDING'
                                    AND (d.error IS NOT NULL OR d.status_code IS NOT NULL))) AS failed,
                count(*) AS n, min(d.created_at) AS oldest,
                (array_agg(coalesce(d.error, 'HTTP ' || d.status_code) ORDER BY d.id DESC))[1] AS error
           FROM (SELECT id, status, error, status_code, created_at FROM notification_deliveries
                  WHERE webhook_id = w.id AND attempts > 0 AND status <> 'SKIPPED'
                    AND last_attempt_at >= w.enabled_at
                  ORDER BY id DESC LIMIT $1) d) last
      WHERE w.status = 'active' AND w.deleted_at IS NULL
        AND last.n >= $1 AND last.failed = last.n AND last.oldest <= now() - make_interval(hours => $2)`,
    [failures, hours],
  );
}
