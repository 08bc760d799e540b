import type { PixApiClient } from '../payment-standards/index.js';
import type { Platform } from '../platform/context.js';
import { startPeriodic } from '../platform/jobs/periodic.js';
import type { SaleSettler } from '../sales/index.js';
import { RECONCILE_TICK_MS, reconcileDue } from './due-runs.js';

/** PIX_PROCESSOR=bcb: the scheduled reconciliation with the PSP (every worker takes part; one run per window). */
export function startReconciliation(
  platform: Platform,
  client: PixApiClient,
  settler: SaleSettler,
): () => void {
  const { db, queue, log } = platform;
  return startPeriodic(
    RECONCILE_TICK_MS,
    () => reconcileDue({ db, queue, settler, client, log }, log),
    (err) => log.warn({ err }, 'reconciliation with the PSP failed; tried again at the next turn'),
  );
}
