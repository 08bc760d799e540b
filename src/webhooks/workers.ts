import type { Platform } from '../platform/context.js';
import { deliverBatch } from './delivery-worker.js';
import { fanOut } from './fanout.js';
import { NotificationClient } from './http-client.js';
import { startSweeper } from './sweeper.js';

/**
 * Concurrency of the delivery engine, per worker process. A batch's jobs run concurrently and each is recorded
 * when it ends; a job holds its worker slot until its batch ends, so one target host may occupy at most
 * PER_HOST slots' worth of jobs (pg-boss localGroupConcurrency) and a dead receiver cannot starve the others.
 */
export const DELIVERY_LIMITS = {
  batchSize: 4,
  workers: 32,
  perHost: 8,
  connectionsPerOrigin: 8,
  fanoutBatchSize: 100,
  fanoutWorkers: 2,
} as const;

export async function startNotificationWorkers(platform: Platform): Promise<void> {
  const { db, queue, config, log } = platform;
  const client = new NotificationClient({
    allowPrivate: config.webhookAllowPrivate,
    timeoutMs: config.webhookTimeoutMs,
    connectionsPerOrigin: DELIVERY_LIMITS.connectionsPerOrigin,
  });
  await queue.work(
    'notifications.fanout',
    { batchSize: DELIVERY_LIMITS.fanoutBatchSize, localConcurrency: DELIVERY_LIMITS.fanoutWorkers },
    async (jobs) => {
      await fanOut(
        db,
        queue,
        jobs.map((j) => j.data.eventId),
      );
    },
  );
  let deliverWorker = '';
  const wake = (delayMs: number) => {
    setTimeout(() => queue.wake(deliverWorker), delayMs + 5).unref();
  };
  deliverWorker = await queue.work(
    'notifications.deliver',
    {
      batchSize: DELIVERY_LIMITS.batchSize,
      localConcurrency: DELIVERY_LIMITS.workers,
      localGroupConcurrency: DELIVERY_LIMITS.perHost,
    },
    async (jobs) => {
      await deliverBatch(
        { db, queue, config, client, log, wake },
        jobs.map((j) => j.data),
      );
    },
  );
  startSweeper(db, queue, log);
}
