/**
 * The job catalogue: every background job, its payload and its queue policy, in one place.
 * Domains add their jobs here; workers register handlers by these names.
 */
export interface JobPayloads {
  'payouts.submit': { withdrawalId: number };
  /** A notification fact was recorded: create its deliveries (webhooks, postback). */
  'notifications.fanout': { eventId: string };
  /** Make the next attempt of a delivery; only the job holding the delivery's current ticket may. */
  'notifications.deliver': { deliveryId: number; ticket: string };
}

export type JobName = keyof JobPayloads;

export interface JobPolicy {
  retryLimit: number;
  retryDelaySeconds: number;
  retryBackoff: boolean;
  expireInSeconds: number;
}

export const JOB_POLICIES: Record<JobName, JobPolicy> = {
  // A provider outage must not lose a payout: keep retrying with backoff for hours.
  'payouts.submit': { retryLimit: 50, retryDelaySeconds: 2, retryBackoff: true, expireInSeconds: 120 },
  'notifications.fanout': { retryLimit: 50, retryDelaySeconds: 1, retryBackoff: true, expireInSeconds: 60 },
  // Receiver failures are retried by the delivery engine itself (3 attempts, WEBHOOK_RETRY_DELAYS_MS); pg-boss
  // retries only cover a handler that crashed on the database. The ticket makes a re-run a no-op.
  'notifications.deliver': { retryLimit: 20, retryDelaySeconds: 1, retryBackoff: true, expireInSeconds: 120 },
};
