import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Db } from '../platform/db.js';
import type { Queue } from '../platform/queue.js';
import { targetGroup } from './deliveries.data.js';
import { MAX_ATTEMPTS } from './delivery-worker.js';
import { fanOut } from './fanout.js';

/** How often each worker process looks for work a crashed process left behind. */
export const SWEEP_INTERVAL_MS = 2000;
/** A fact whose fan-out job has not run for this long is fanned out by the sweeper. */
const STALE_FACT_MS = 10000;
/** A scheduled attempt whose job has not run this long after its time is enqueued again (same ticket). */
const STALE_TICKET_MS = 300000;
const LIMIT = 500;

/**
 * Recovery for process crashes: pg-boss eventually retries an interrupted job, but only after its expiry; the
 * sweeper finds the same work sooner from the delivery rows themselves. Every path is idempotent (fan-out
 * claims facts, attempts are claimed by ticket), so several sweeping processes cannot duplicate an attempt.
 */
export async function sweep(db: Db, queue: Queue): Promise<void> {
  const facts = await db.query<{ id: string }>(
    `SELECT id FROM notification_events
      WHERE fanned_out_at IS NULL AND created_at < now() - make_interval(secs => $1::double precision / 1000)
      ORDER BY created_at LIMIT $2`,
    [STALE_FACT_MS, LIMIT],
  );
  if (facts.length > 0)
    await fanOut(
      db,
      queue,
      facts.map((f) => f.id),
    );
  await resumeInterrupted(db, queue);
  await requeueLost(db, queue);
}

/** Attempts whose worker died before recording an outcome: logged as interrupted, then retried or failed. */
async function resumeInterrupted(db: Db, queue: Queue): Promise<void> {
  await db.tx(async (tx) => {
    const rows = await tx.query<{
      id: number;
      attempts: number;
      redelivery: boolean;
      event_type: string;
      url: string;
    }>(
      `SELECT d.id, d.attempts, d.redelivery, e.event_type, coalesce(w.url, e.postback_url) AS url
         FROM notification_deliveries d
         JOIN notification_events e ON e.id = d.event_id
         LEFT JOIN webhooks w ON w.id = d.webhook_id
        WHERE d.status = 'PENDING' AND d.ticket IS NULL AND d.lease_until < now()
        ORDER BY d.id LIMIT $1
        FOR UPDATE OF d SKIP LOCKED`,
      [LIMIT],
    );
    const jobs: { data: { deliveryId: number; ticket: string }; options: { group: string } }[] = [];
    for (const r of rows) {
      const retry = !r.redelivery && r.attempts < MAX_ATTEMPTS;
      const ticket = retry ? randomUUID() : null;
      await tx.query(
        `WITH logged AS (
           INSERT INTO notification_attempts (delivery_id, attempt, event_type, url, redelivery, error, duration_ms)
           VALUES ($1, $2, $3, $4, $5, $6, 0) ON CONFLICT DO NOTHING)
         UPDATE notification_deliveries
            SET status = $7, error = $6, status_code = NULL, lease_until = NULL, ticket = $8,
                next_attempt_at = CASE WHEN $8::uuid IS NULL THEN NULL ELSE now() END
          WHERE id = $1`,
        [
          r.id,
          r.attempts,
          r.event_type,
          r.url,
          r.redelivery,
          'interrupted: the worker stopped before the outcome was known',
          retry ? 'PENDING' : 'FAILED',
          ticket,
        ],
      );
      if (ticket)
        jobs.push({ data: { deliveryId: Number(r.id), ticket }, options: { group: targetGroup(r.url) } });
    }
    await queue.sendMany(tx, 'notifications.deliver', jobs);
  });
}

/** A scheduled attempt whose job vanished (e.g. exhausted pg-boss retries): enqueue it again, same ticket. */
async function requeueLost(db: Db, queue: Queue): Promise<void> {
  await db.tx(async (tx) => {
    const rows = await tx.query<{ id: number; ticket: string; url: string }>(
      `UPDATE notification_deliveries d SET next_attempt_at = now()
         FROM notification_events e
        WHERE e.id = d.event_id AND d.id IN (
          SELECT id FROM notification_deliveries
           WHERE status = 'PENDING' AND ticket IS NOT NULL
             AND next_attempt_at < now() - make_interval(secs => $1::double precision / 1000)
           ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING d.id, d.ticket,
          coalesce((SELECT url FROM webhooks w WHERE w.id = d.webhook_id), e.postback_url) AS url`,
      [STALE_TICKET_MS, LIMIT],
    );
    await queue.sendMany(
      tx,
      'notifications.deliver',
      rows.map((r) => ({
        data: { deliveryId: Number(r.id), ticket: r.ticket },
        options: { group: targetGroup(r.url) },
      })),
    );
  });
}

/** Runs the sweeper now and every SWEEP_INTERVAL_MS until the process ends (the timer does not hold it open). */
export function startSweeper(db: Db, queue: Queue, log: Logger): () => void {
  let running = false;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = true;
    sweep(db, queue)
      .catch((err: unknown) => {
        if (!stopped) log.warn({ err }, 'notification sweep failed');
      })
      .finally(() => {
        running = false;
      });
  };
  const timer = setInterval(tick, SWEEP_INTERVAL_MS);
  timer.unref();
  tick();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
