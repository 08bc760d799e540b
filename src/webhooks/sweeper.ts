import type { Logger } from 'pino';
import type { Db, Queryable } from '../platform/db/db.js';
import { isDatabaseUnavailable } from '../platform/db/unavailable.js';
import { MAX_ATTEMPTS } from './delivery-attempts.js';
import { fanOutPending, NO_ROOM } from './fanout.js';

/** How often each worker process looks for work a crashed process left behind. */
const SWEEP_INTERVAL_MS = 2000;
/** A fact not fanned out for this long is fanned out by the sweeper (a backstop for the dispatchers). */
const STALE_FACT_MS = 10000;
const LIMIT = 500;

/**
 * Recovery for process crashes. Facts are normally fanned out by the dispatchers (dispatcher.ts); the sweeper
 * takes any left behind for STALE_FACT_MS as a backstop, leaving their deliveries due. An attempt whose lease
 * ran out was cut off by its process dying: it is logged as interrupted and the next one made due. Most such
 * attempts were waiting in that process's memory and never sent, so a delivery's first interruption gives it
 * one attempt more than MAX_ATTEMPTS (a manual resend one more try); a second interruption counts like any
 * failure, so a delivery that keeps killing its worker still ends FAILED. Both paths are idempotent (fan-out
 * takes outbox rows under lock; the lease check and row lock claim attempts), so several sweeping processes
 * cannot duplicate anything. Returns the number of deliveries made due.
 */
export async function sweep(db: Db, queue: Queryable): Promise<number> {
  const { deliveries: created } = await fanOutPending(queue, LIMIT, NO_ROOM, STALE_FACT_MS);
  const resumed = await db.query<{ id: number; status: string }>(
    `WITH dead AS (
       SELECT d.id, d.attempts, d.redelivery, d.interrupted, e.event_type, coalesce(w.url, e.postback_url) AS url,
              NOT d.interrupted OR (NOT d.redelivery AND d.attempts < $3 + 1) AS again
         FROM notification_deliveries d
         JOIN notification_events e ON e.id = d.event_id
         LEFT JOIN webhooks w ON w.id = d.webhook_id
        WHERE d.status = 'PENDING' AND d.ticket IS NULL AND d.lease_until < now()
        ORDER BY d.lease_until LIMIT $1
        FOR UPDATE OF d SKIP LOCKED),
     logged AS (
       INSERT INTO notification_attempts (delivery_id, attempt, event_type, url, redelivery, error, duration_ms)
       SELECT id, attempts, event_type, url, redelivery, $2, 0 FROM dead
       ON CONFLICT DO NOTHING)
     UPDATE notification_deliveries d
        SET status = CASE WHEN dead.again THEN 'PENDING' ELSE 'FAILED' END,
            ticket = CASE WHEN dead.again THEN gen_random_uuid() END,
            next_attempt_at = CASE WHEN dead.again THEN now() END,
            interrupted = true,
            error = $2, status_code = NULL, lease_until = NULL
       FROM dead WHERE d.id = dead.id
     RETURNING d.id, d.status`,
    [LIMIT, 'interrupted: the worker stopped before the outcome was known', MAX_ATTEMPTS],
  );
  return created + resumed.filter((r) => r.status === 'PENDING').length;
}

/** Runs the sweeper now and every SWEEP_INTERVAL_MS (the timer does not hold the process open). */
export function startSweeper(db: Db, queue: Queryable, log: Logger, onWork: () => void): () => void {
  let running = false;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = true;
    sweep(db, queue)
      .then((n) => {
        if (n > 0) onWork();
      })
      .catch((err: unknown) => {
        if (!stopped && !isDatabaseUnavailable(err)) log.warn({ err }, 'notification sweep failed');
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
