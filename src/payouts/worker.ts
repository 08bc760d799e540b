import type { Platform } from '../platform/context.js';
import { startPeriodic } from '../platform/periodic.js';
import { RECONCILE_EVERY_MS, reconcilePayouts, submitPayouts } from './payouts.service.js';
import type { PayoutProvider } from './provider.js';

/**
 * Worker of job 'payouts.submit' (enqueued in the transaction that creates the withdrawal). Jobs are
 * fetched in batches and submitted together; if any submission failed the batch fails and pg-boss retries
 * it (withdrawals already submitted are then skipped: only PENDING ones are claimed).
 */
export async function startPayoutWorker(
  platform: Platform,
  provider: PayoutProvider,
): Promise<() => Promise<void>> {
  const { db, queue, log } = platform;
  await queue.work('payouts.submit', { batchSize: 4, localConcurrency: 1 }, async (jobs) => {
    const ids = jobs.flatMap((j) => j.data.withdrawalIds);
    try {
      await submitPayouts(db, provider, ids);
    } catch (err) {
      log.warn({ err, withdrawalIds: ids }, 'payout submission failed; will retry');
      throw err;
    }
  });
  // providers read back rather than trusted by callback (Efí): PROCESSING withdrawals are checked periodically
  const stop = provider.check
    ? startPeriodic(
        RECONCILE_EVERY_MS,
        () => reconcilePayouts(db, provider),
        (err) => log.warn({ err }, 'payout reconciliation failed; will retry'),
      )
    : () => undefined;
  return async () => stop();
}
