import type { Platform } from '../platform/context.js';
import { submitPayout } from './payouts.service.js';
import type { PayoutProvider } from './provider.js';

/** Worker of job 'payouts.submit' (enqueued in the transaction that creates the withdrawal). */
export async function startPayoutWorker(platform: Platform, provider: PayoutProvider): Promise<void> {
  const { db, queue, log } = platform;
  await queue.work('payouts.submit', { batchSize: 1, localConcurrency: 4 }, async (jobs) => {
    for (const job of jobs) {
      try {
        await submitPayout(db, queue, provider, job.data.withdrawalId);
      } catch (err) {
        log.warn({ err, withdrawalId: job.data.withdrawalId }, 'payout submission failed; will retry');
        throw err;
      }
    }
  });
}
