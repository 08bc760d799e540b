import type { Platform } from './platform/context.js';

/** Every background worker of every domain, started by `gateway serve` and `gateway worker`. */
export async function startWorkers(_platform: Platform): Promise<void> {}
