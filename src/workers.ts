import type { Platform } from './platform/context.js';
import { startReserveWorker } from './sales/reserve.js';

/** Every background worker of every domain, started by `gateway serve` and `gateway worker`. */
export async function startWorkers(platform: Platform): Promise<void> {
  await startReserveWorker(platform.db, platform.queue);
}
