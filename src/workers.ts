import type { Platform } from './platform/context.js';
import { startNotificationWorkers } from './webhooks/workers.js';

/** Every background worker of every domain, started by `gateway serve` and `gateway worker`. */
export async function startWorkers(platform: Platform): Promise<void> {
  await startNotificationWorkers(platform);
}
