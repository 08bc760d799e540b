import type { Platform } from '../../platform/context.js';
import { startPeriodic } from '../../platform/jobs/periodic.js';
import { EXPIRY_CHECK_EVERY_MS, expireOverdueApprovals } from './decide.js';
import { mailApprovers } from './mail.js';

/** Approvers are mailed when a withdrawal starts waiting; one left unanswered for 72 hours is declined. */
export async function startApprovalWorker(platform: Platform): Promise<() => void> {
  const { db, queue, log, config } = platform;
  await queue.work('withdrawals.ask-approval', { batchSize: 10 }, async (jobs) => {
    await mailApprovers(
      db,
      { queue, key: config.secretsKey },
      config.publicUrl,
      jobs.flatMap((j) => j.data.withdrawalIds),
    );
  });
  return startPeriodic(
    EXPIRY_CHECK_EVERY_MS,
    async () => {
      const expired = await expireOverdueApprovals(db, queue);
      if (expired > 0) log.info({ expired }, 'withdrawals declined: approval not given within 72 hours');
    },
    (err) => log.warn({ err }, 'approval expiry failed; will retry'),
  );
}
