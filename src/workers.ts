import { payoutProviders } from './payouts/providers.js';
import { startPayoutWorker } from './payouts/worker.js';
import type { Platform } from './platform/context.js';
import { startNotificationWorkers } from './webhooks/workers.js';

/** Every background worker of every domain, started by `gateway serve` and `gateway worker`. */
export async function startWorkers(platform: Platform): Promise<void> {
  await startPayoutWorker(platform, payoutProviders(platform.db).sandbox);
  await startNotificationWorkers(platform);
}
