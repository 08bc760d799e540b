import { startIdempotencyCleanup } from './cashouts/idempotency.js';
import { payoutProviders } from './payouts/providers.js';
import { startPayoutWorker } from './payouts/worker.js';
import type { Platform } from './platform/context.js';
import { startReserveWorker } from './sales/reserve.js';
import { startNotificationWorkers } from './webhooks/workers.js';

/**
 * Every background worker of every domain, started by `gateway serve` and `gateway worker`. Returns a stop
 * function for the loops that are not pg-boss handlers (pg-boss handlers stop with the queue).
 */
export async function startWorkers(platform: Platform): Promise<() => Promise<void>> {
  await startPayoutWorker(platform, payoutProviders(platform.db).sandbox);
  await startReserveWorker(platform.db, platform.queue);
  const stopKeyCleanup = startIdempotencyCleanup(platform.db, (err) =>
    platform.log.warn({ err }, 'idempotency key cleanup failed'),
  );
  const stopNotifications = await startNotificationWorkers(platform);
  return async () => {
    stopKeyCleanup();
    await stopNotifications();
  };
}
