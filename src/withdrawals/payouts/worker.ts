import type { Platform } from '../../platform/context.js';
import { isDatabaseUnavailable } from '../../platform/db/unavailable.js';
import { startPeriodic } from '../../platform/jobs/periodic.js';
import {
  OVERDUE_CHECK_EVERY_MS,
  RECONCILE_EVERY_MS,
  REQUEUE_EVERY_MS,
  reconcilePayouts,
  requeueStalePending,
  settleOverdue,
  submitPayouts,
} from './payouts.js';
import type { PayoutProvider } from './provider.js';
import type { SandboxPayoutProvider } from './sandbox-provider.js';
import { completeDueSandboxPayouts } from './sandbox-results.js';

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
  // retries are due at most 3 s apart (platform/jobs/catalogue.ts) and found within 1 s: a provider back is used within seconds
  await queue.work('payouts.submit', { batchSize: 4, localConcurrency: 1, pollSeconds: 1 }, async (jobs) => {
    const ids = jobs.flatMap((j) => j.data.withdrawalIds);
    try {
      await submitPayouts(db, provider, ids);
    } catch (err) {
      log.warn({ err, withdrawalIds: ids }, 'payout submission failed; will retry');
      throw err;
    }
  });
  // a PENDING withdrawal whose job failed for good or was lost gets a new one
  const stopRequeue = startPeriodic(
    REQUEUE_EVERY_MS,
    async () => {
      const n = await requeueStalePending(db, queue);
      if (n > 0) log.info({ withdrawals: n }, 'pending withdrawals queued for submission again');
    },
    (err) => log.warn({ err }, 'pending withdrawal requeue failed; will retry'),
  );
  // jobs this process had fetched when the database was lost stay active until they expire: after a failover
  // every PENDING withdrawal is queued again at once (submission is idempotent by reference)
  const stopRecovered = db.onRecovered(() => {
    requeueStalePending(db, queue, 500, 0).then(
      (n) => {
        if (n > 0)
          log.info({ withdrawals: n }, 'database back: pending withdrawals queued for submission again');
      },
      // the database lost again just after it was found (seen behind PgBouncer in a switchover): the periodic
      // requeue takes them up, as it does whenever the database is unavailable
      (err: unknown) => {
        if (!isDatabaseUnavailable(err)) log.warn({ err }, 'pending withdrawal requeue failed; will retry');
      },
    );
  });
  // providers read back rather than trusted by callback (Efí): PROCESSING withdrawals are checked periodically
  const stopReconcile = provider.check
    ? startPeriodic(
        RECONCILE_EVERY_MS,
        () => reconcilePayouts(db, provider),
        (err) => log.warn({ err }, 'payout reconciliation failed; will retry'),
      )
    : () => undefined;
  return async () => {
    stopRecovered();
    stopRequeue();
    stopReconcile();
  };
}

/**
 * Withdrawals PROCESSING for over 30 minutes are read back from whichever provider they went to (Efí's, the
 * sandbox's) and settled from its answer: a callback lost, or a provider no longer the active one.
 */
export function startOverdueCheck(
  platform: Platform,
  providerOf: (name: string) => PayoutProvider | undefined,
) {
  const { db, log } = platform;
  return startPeriodic(
    OVERDUE_CHECK_EVERY_MS,
    async () => {
      const moved = await settleOverdue(db, providerOf);
      if (moved > 0)
        log.warn({ withdrawals: moved }, 'overdue PROCESSING withdrawals settled from their provider');
    },
    (err) => log.warn({ err }, 'overdue withdrawal read-back failed; will retry'),
  );
}

/**
 * With the sandbox on, its payouts complete by themselves `delayMs` after they were sent (SANDBOX_CASHOUT_DELAY_MS),
 * looked for every second at most (sooner for a shorter delay).
 */
export function startSandboxPayoutCompletion(
  platform: Platform,
  sandbox: SandboxPayoutProvider,
  delayMs: number,
) {
  const { db, log } = platform;
  return startPeriodic(
    Math.min(1000, Math.max(50, delayMs)),
    () => completeDueSandboxPayouts(db, sandbox, delayMs),
    (err) => log.warn({ err }, 'sandbox payout completion failed; will retry'),
  );
}
