import type { PixApiClient } from '../payment-standards/index.js';
import type { Platform } from '../platform/context.js';
import { isDatabaseUnavailable } from '../platform/db/unavailable.js';
import { startPeriodic } from '../platform/jobs/periodic.js';
import type { SaleSettler } from '../sales/index.js';
import { RECONCILE_TICK_MS, reconcileDue, runPending } from './due-runs.js';

/**
 * PIX_PROCESSOR=bcb: the scheduled reconciliation with the PSP (every worker takes part; one run per window),
 * and the runs asked for from the console, which a job hands to the first worker free at once.
 */
export async function startReconciliation(
  platform: Platform,
  client: PixApiClient,
  settler: SaleSettler,
): Promise<() => void> {
  const { db, queue, log } = platform;
  const deps = { db, queue, settler, client, log };
  const failed = (err: unknown) =>
    log.warn({ err }, 'reconciliation with the PSP failed; tried again at the next turn');
  await queue.work('reconciliation.run', { batchSize: 1 }, async () => {
    // the database lost (a failover) is said once by its own log line, as the periodic turn does
    await runPending(deps, log).catch((err: unknown) =>
      isDatabaseUnavailable(err) ? undefined : failed(err),
    );
  });
  return startPeriodic(RECONCILE_TICK_MS, () => reconcileDue(deps, log), failed);
}
