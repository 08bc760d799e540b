import type { Queryable } from '../platform/db/db.js';
import { deliveries, type NotificationBacklog } from '../platform/observability/metrics.js';

/** One claimed attempt: everything needed to send it. */
export interface ClaimedAttempt {
  id: number;
  kind: 'webhook' | 'postback';
  attempt: number;
  redelivery: boolean;
  /** A manual resend of a delivery still owed an automatic retry: should it fail, the schedule goes on. */
  resentInSchedule: boolean;
  /** An earlier attempt was cut off by its worker dying: one attempt more is allowed (sweeper.ts). */
  interrupted: boolean;
  eventId: string;
  eventType: string;
  webhookBody: string;
  postbackUrl: string | null;
  postbackBody: string | null;
  webhookId: number | null;
  webhookUrl: string | null;
  secretEnc: string | null;
  webhookDeleted: boolean;
  /** The webhook was disabled after this attempt was claimed: nothing is sent, the delivery is SKIPPED. */
  webhookDisabled: boolean;
  /** host:port the attempt goes to (per-host limits). */
  targetHost: string;
  /** The account whose fact it delivers (per-account limits). */
  accountId: number;
}

/** The host:port of a target as the URL parser normalizes it: the unit of per-host concurrency limits. */
export function targetGroup(url: string): string {
  try {
    return new URL(url).host || 'invalid';
  } catch {
    return 'invalid';
  }
}

/**
 * A process's room per target host and per account, and how an attempt's lease follows from its place in its
 * host's queue. Claims and fan-out both place attempts with it.
 */
export interface HostRoom {
  /** Attempts this process already holds per host (others hold none); a host takes heldPerHost minus that. */
  holding: Map<string, number>;
  /** 0 takes nothing. */
  heldPerHost: number;
  /** Attempts this process already holds per account; an account takes heldPerAccount minus that. */
  accountHolding: Map<number, number>;
  heldPerAccount: number;
  /** Attempts in flight per host: an attempt waits behind ceil(position / perHost) rounds of its host. */
  perHost: number;
  /** Bound of one round (the response timeout), and the margin added to every lease. */
  roundMs: number;
  marginMs: number;
  /**
   * Hosts of unknown speed are on probation (the fast lane's probe share, docs/decisions.md "Concurrency and
   * fairness"): a host not in `known` holds at most `perHost` attempts, and all of them together at most `room`
   * more. Absent: every host is known (heldPerHost each, no probe share).
   */
  probation?: { known: readonly string[]; perHost: number; room: number };
}

/** The probation parameters of a room: off is "every host known". */
export function probationParams(r: HostRoom): [string[], number, number] {
  if (!r.probation) return [[], r.heldPerHost, 2_147_483_647];
  return [[...r.probation.known], r.probation.perHost, r.probation.room];
}

export interface ClaimRequest extends HostRoom {
  /** Most attempts to claim. */
  limit: number;
  /** Hosts that take nothing now. */
  skipHosts: string[];
  /** Only these hosts take anything (the slow lane's claim); skipHosts is then not used. */
  onlyHosts?: string[];
  /** Accounts that take nothing now. */
  skipAccounts: number[];
}

/**
 * Session settings for the delivery queue's statements (run through `Db.withSettings`, so each statement is
 * one round trip rather than a transaction that sets them first). The due index is a queue: claimed rows
 * leave dead entries at its head until vacuum. An ordered index scan marks them dead once and later scans skip
 * them; a bitmap scan (what the planner picks on a young or churning table, whose statistics say "few rows")
 * read every one of them on every claim.
 * Outcome writes join their batch to deliveries by primary key; on a young table the planner hashed the batch
 * against a sequential scan of every delivery. Hence no bitmap or sequential scans and no hash joins.
 */
export const QUEUE_SETTINGS = {
  enable_bitmapscan: 'off',
  enable_seqscan: 'off',
  enable_hashjoin: 'off',
} as const;

/**
 * Claims due attempts, oldest first, at most each host's and each account's room: clears each ticket, counts the attempt and sets
 * a lease, in one statement. SKIP LOCKED and the ticket check make a row claimable by one worker only. The
 * lease covers the rounds of its host the attempt waits behind in this process (its position among the
 * host's held attempts over perHost, each round bounded by the timeout), so a deep queue of claimed work does
 * not make the front of it slow to recover after a crash. `queue` should carry QUEUE_SETTINGS.
 */
export async function claimDue(queue: Queryable, r: ClaimRequest): Promise<ClaimedAttempt[]> {
  // rows come back in each host's queue order (the order positions, hence leases, were given in).
  // An attempt needs room in its host and then in its account (counted among the rows its host has room
  // for). Accounts and hosts at their sit-out mark are left out of the candidates, so one account's backlog
  // (older than everyone else's) cannot fill them.
  // The lock step looks the picked ids up by primary key and carries their positions, so the update joins
  // one small input: joining the picked rows to the locked ones there ran as a nested loop of the two CTEs
  // (their estimates say "a few rows"), a comparison per pair of rows, most of a claim's time (auto_explain).
  // The lock step rechecks the ticket on the row version it locks (a concurrent claim cleared it: skipped);
  // the status and due time are checked in the update, on that same locked version (another process may have
  // claimed it and written a retry meanwhile), and not in the lock step, whose predicate would otherwise
  // match the due index's and let the planner walk that whole index.
  const only = r.onlyHosts !== undefined;
  const rows = await queue.query<ClaimedAttempt>(
    `WITH cand AS (
       SELECT id, target_host, account_id, next_attempt_at FROM notification_deliveries
        WHERE status = 'PENDING' AND ticket IS NOT NULL AND next_attempt_at <= now()
          AND ${only ? 'target_host = ANY ($2::text[])' : 'target_host <> ALL ($2::text[])'}
          AND account_id <> ALL ($9::bigint[])
        ORDER BY next_attempt_at LIMIT $1),
     hosted AS (
       SELECT c.id, c.account_id, c.next_attempt_at, NOT (c.target_host = ANY ($13::text[])) AS probe,
              coalesce(r.holding, 0)
              + row_number() OVER (PARTITION BY c.target_host ORDER BY c.next_attempt_at, c.id) AS pos
         FROM cand c LEFT JOIN unnest($3::text[], $4::int[]) AS r(host, holding) ON r.host = c.target_host),
     placed AS (
       SELECT h.id, h.pos, h.next_attempt_at, h.probe,
              coalesce(a.holding, 0)
              + row_number() OVER (PARTITION BY h.account_id ORDER BY h.next_attempt_at, h.id) AS account_pos
         FROM hosted h LEFT JOIN unnest($10::bigint[], $11::int[]) AS a(account_id, holding)
              ON a.account_id = h.account_id
        WHERE h.pos <= CASE WHEN h.probe THEN $14::int ELSE $5::int END),
     probed AS (
       SELECT p.id, p.pos, p.next_attempt_at, p.probe,
              count(*) FILTER (WHERE p.probe) OVER (ORDER BY p.next_attempt_at, p.id) AS probe_pos
         FROM placed p WHERE p.account_pos <= $12),
     pick AS (SELECT id, pos FROM probed WHERE NOT probe OR probe_pos <= $15 ORDER BY next_attempt_at LIMIT $1),
     locked AS (
       SELECT d.id, p.pos FROM pick p JOIN notification_deliveries d ON d.id = p.id
        WHERE d.ticket IS NOT NULL
        FOR UPDATE OF d SKIP LOCKED),
     c AS (
       UPDATE notification_deliveries d
          SET ticket = NULL, attempts = d.attempts + 1, last_attempt_at = now(),
              lease_until = now() + make_interval(secs => (ceil(locked.pos::numeric / $6) * $7 + $8)::double precision / 1000)
         FROM locked WHERE d.id = locked.id AND d.status = 'PENDING' AND d.next_attempt_at <= now()
        RETURNING d.id, d.kind, d.attempts, d.redelivery, d.resent_in_schedule, d.interrupted, d.event_id,
                  d.webhook_id, d.target_host, d.account_id, d.next_attempt_at)
     SELECT c.id, c.kind, c.attempts AS attempt, c.redelivery, c.resent_in_schedule AS "resentInSchedule",
            c.interrupted, c.target_host AS "targetHost",
            c.account_id AS "accountId",
            e.id AS "eventId", e.event_type AS "eventType", e.webhook_body AS "webhookBody",
            e.postback_url AS "postbackUrl", e.postback_body AS "postbackBody",
            c.webhook_id AS "webhookId", w.url AS "webhookUrl", w.secret_enc AS "secretEnc",
            (w.deleted_at IS NOT NULL) AS "webhookDeleted", coalesce(w.status = 'disabled', false) AS "webhookDisabled"
       FROM c
       JOIN notification_events e ON e.id = c.event_id
       LEFT JOIN webhooks w ON w.id = c.webhook_id
      ORDER BY c.next_attempt_at, c.id`,
    [
      r.limit,
      only ? r.onlyHosts : r.skipHosts,
      [...r.holding.keys()],
      [...r.holding.values()],
      r.heldPerHost,
      r.perHost,
      r.roundMs,
      r.marginMs,
      r.skipAccounts,
      [...r.accountHolding.keys()],
      [...r.accountHolding.values()],
      r.heldPerAccount,
      ...probationParams(r),
    ],
    { prepare: only ? 'webhooks_claim_only_v5' : 'webhooks_claim_due_v5' },
  );
  for (const row of rows) {
    row.id = Number(row.id);
    row.accountId = Number(row.accountId);
    if (row.webhookId !== null) row.webhookId = Number(row.webhookId);
  }
  return rows;
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
 * `queue` should carry QUEUE_SETTINGS.
 */
export async function recordAttempts(
  queue: Queryable,
  items: readonly { record: AttemptRecord; next: NextStep }[],
): Promise<void> {
  if (items.length === 0) return;
  const col = <T>(f: (i: { record: AttemptRecord; next: NextStep }) => T) => items.map(f);
  await queue.query(
    `WITH input AS (
       SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[], $4::text[], $5::boolean[], $6::int[], $7::text[],
                            $8::int[], $9::text[], $10::uuid[], $11::int[])
         AS t(delivery_id, attempt, event_type, url, redelivery, status_code, error, duration_ms, status, ticket, delay_ms)),
     logged AS (
       INSERT INTO notification_attempts
         (delivery_id, attempt, event_type, url, redelivery, status_code, error, duration_ms)
       SELECT delivery_id, attempt, event_type, url, redelivery, status_code, error, duration_ms FROM input
       -- the sweeper logged this attempt as interrupted (its lease ran out first): keep that, and the rest of
       -- the batch (the update below already leaves such a delivery to its newer attempt)
       ON CONFLICT DO NOTHING),
     decided AS (
       -- a retry of a webhook disabled meanwhile is not made: SKIPPED, for recover, like the facts after it
       SELECT i.*, i.ticket IS NOT NULL AND EXISTS (
                SELECT 1 FROM notification_deliveries x JOIN webhooks w ON w.id = x.webhook_id
                 WHERE x.id = i.delivery_id AND w.status = 'disabled') AS skip
         FROM input i)
     UPDATE notification_deliveries d
        SET status = CASE WHEN i.skip THEN 'SKIPPED' ELSE i.status END,
            status_code = i.status_code, error = i.error, lease_until = NULL,
            ticket = CASE WHEN i.skip THEN NULL ELSE i.ticket END,
            -- a retry scheduled (after a resend that took a retry's place, too) is an automatic attempt again
            redelivery = CASE WHEN i.ticket IS NOT NULL AND NOT i.skip THEN false ELSE d.redelivery END,
            resent_in_schedule = CASE WHEN i.ticket IS NOT NULL AND NOT i.skip THEN false
                                      ELSE d.resent_in_schedule END,
            next_attempt_at = CASE WHEN i.ticket IS NULL OR i.skip THEN NULL
                                   ELSE now() + make_interval(secs => i.delay_ms::double precision / 1000) END
       FROM decided i
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
    { prepare: 'webhooks_record_attempts_v4' },
  );
  for (const { next } of items) {
    deliveries.inc({
      outcome: next.status === 'PENDING' ? 'retry' : next.status === 'DELIVERED' ? 'delivered' : 'failed',
    });
  }
}

/**
 * Hands claimed attempts that were never started back to the queue (a process stopping): each is due at once
 * again, for any process, with its attempt uncounted. A row whose claim moved on meanwhile is left alone.
 */
export async function releaseClaims(queue: Queryable, attempts: readonly ClaimedAttempt[]): Promise<void> {
  await queue.query(
    `UPDATE notification_deliveries d
        SET ticket = gen_random_uuid(), attempts = d.attempts - 1, lease_until = NULL, next_attempt_at = now(),
            last_attempt_at = CASE WHEN d.attempts = 1 THEN NULL ELSE d.last_attempt_at END
       FROM unnest($1::bigint[], $2::int[]) AS r(id, attempt)
      WHERE d.id = r.id AND d.attempts = r.attempt AND d.ticket IS NULL AND d.status = 'PENDING'`,
    [attempts.map((a) => a.id), attempts.map((a) => a.attempt)],
  );
}

/** A webhook's target as it is now: where attempts go, the secret they are signed with, and whether it is live. */
export async function webhookTarget(
  db: Queryable,
  webhookId: number,
): Promise<{ url: string; secretEnc: string; deleted: boolean; disabled: boolean } | undefined> {
  const [row] = await db.query<{ url: string; secretEnc: string; deleted: boolean; disabled: boolean }>(
    `SELECT url, secret_enc AS "secretEnc", deleted_at IS NOT NULL AS deleted, status = 'disabled' AS disabled
       FROM webhooks WHERE id = $1`,
    [webhookId],
  );
  return row;
}

/**
 * A claimed attempt whose webhook was disabled before it was sent: nothing is sent, the attempt is uncounted
 * and the delivery SKIPPED like the facts after the disable (recover sends it later); the last attempt's result,
 * if there was one, stays. A delivery whose claim moved on meanwhile is left alone.
 */
export async function skipDisabled(db: Queryable, deliveryId: number, attempt: number): Promise<void> {
  await db.query(
    `UPDATE notification_deliveries
        SET status = 'SKIPPED', attempts = attempts - 1, lease_until = NULL, ticket = NULL, next_attempt_at = NULL,
            last_attempt_at = CASE WHEN attempts = 1 THEN NULL ELSE last_attempt_at END
      WHERE id = $1 AND attempts = $2 AND ticket IS NULL AND status = 'PENDING'`,
    [deliveryId, attempt],
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

/** The notification backlog the queue gauges show: facts not yet fanned out plus deliveries still to be made. */
export async function readBacklog(q: Queryable): Promise<NotificationBacklog> {
  const [row] = await q.query<NotificationBacklog>(`
    SELECT (SELECT count(*) FROM notification_outbox)::int
             + (SELECT count(*) FROM notification_deliveries WHERE status = 'PENDING')::int AS depth,
           COALESCE(extract(epoch FROM now() - LEAST(
             (SELECT min(created_at) FROM notification_outbox),
             (SELECT min(created_at) FROM notification_deliveries WHERE status = 'PENDING'))), 0)::float8 AS oldest,
           COALESCE(extract(epoch FROM now() - (SELECT min(created_at) FROM notification_outbox)), 0)::float8
             AS unfanned`);
  return row!;
}
