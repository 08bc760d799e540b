/**
 * The job catalogue: every background job, its payload and its queue policy, in one place.
 * Domains add their jobs here; workers register handlers by these names.
 */
export interface JobPayloads {
  /** Every withdrawal created by one shared transaction. */
  'payouts.submit': { withdrawalIds: number[] };
  /** A paid sale's reserve hold ended: move it from blocked to available. */
  'sales.release-reserve': { saleId: number };
  /** Withdrawals waiting for approval: e-mail the users who may approve them. */
  'withdrawals.ask-approval': { withdrawalIds: number[] };
  /** One e-mail of the mail outbox (mail_messages) to send. */
  'mail.send': { messageId: number };
  /** A merchant's answer to a MED opened by the PSP's notice, to send on as the PSP's defence. */
  'disputes.defend': { disputeId: number };
  /** A card acquirer's chargeback notice whose read-back failed: the payment to read back again. */
  'disputes.card-notice': { paymentId: string };
  /** A checkout session's sale was paid: the session's other charges still awaiting payment to cancel. */
  'sales.cancel-session-charges': { saleId: number };
  /** An account was closed: its open charges to cancel (again: one admitted while the close committed). */
  'sales.cancel-account-charges': { accountId: number };
  /** A reconciliation run asked for from the console: wakes a worker to run it (and any other waiting). */
  'reconciliation.run': { runId: number };
}

export type JobName = keyof JobPayloads;

export interface JobPolicy {
  retryLimit: number;
  retryDelaySeconds: number;
  retryBackoff: boolean;
  /** The longest wait between two tries, however many failed (the backoff stops growing there). */
  retryDelayMaxSeconds?: number;
  expireInSeconds: number;
}

export const JOB_POLICIES: Record<JobName, JobPolicy> = {
  // A provider outage must not lose a payout, and its end must be noticed within seconds: retried every
  // 1, 2, then 3 s at most, for days (the reconciler in payouts/worker.ts re-enqueues anything left over).
  // A worker killed mid-submission is retried once the job expires; submission is idempotent by reference.
  'payouts.submit': {
    retryLimit: 100_000,
    retryDelaySeconds: 1,
    retryBackoff: true,
    retryDelayMaxSeconds: 3,
    expireInSeconds: 30,
  },
  'sales.release-reserve': { retryLimit: 50, retryDelaySeconds: 5, retryBackoff: true, expireInSeconds: 60 },
  'withdrawals.ask-approval': {
    retryLimit: 50,
    retryDelaySeconds: 5,
    retryBackoff: true,
    expireInSeconds: 60,
  },
  // an SMTP server down is waited for: 10 s, doubling up to 10 min between tries, about 2.5 hours in all
  'mail.send': {
    retryLimit: 20,
    retryDelaySeconds: 10,
    retryBackoff: true,
    retryDelayMaxSeconds: 600,
    expireInSeconds: 120,
  },
  // the PSP down is waited for as the mail server is; the defence is sent before its deadline or not at all
  'disputes.defend': {
    retryLimit: 20,
    retryDelaySeconds: 10,
    retryBackoff: true,
    retryDelayMaxSeconds: 600,
    expireInSeconds: 60,
  },
  // the PSP or acquirer down is waited for; a charge left open meanwhile still expires by itself
  'sales.cancel-account-charges': {
    retryLimit: 20,
    retryDelaySeconds: 10,
    retryBackoff: true,
    retryDelayMaxSeconds: 600,
    expireInSeconds: 300,
  },
  // the PSP down is waited for; a charge it could not remove meanwhile is still refused by the paid session's pages
  'sales.cancel-session-charges': {
    retryLimit: 20,
    retryDelaySeconds: 10,
    retryBackoff: true,
    retryDelayMaxSeconds: 600,
    expireInSeconds: 120,
  },
  // the run itself keeps its place and is retried by the workers' own turn: the job only wakes one sooner; a
  // window of 100,000 Pix takes minutes, and a job expired meanwhile finds the run held and does nothing
  'reconciliation.run': { retryLimit: 0, retryDelaySeconds: 60, retryBackoff: false, expireInSeconds: 3600 },
  // the acquirer sends a notice answered 200 only once: its read-back is retried here until the acquirer answers
  'disputes.card-notice': {
    retryLimit: 20,
    retryDelaySeconds: 10,
    retryBackoff: true,
    retryDelayMaxSeconds: 600,
    expireInSeconds: 60,
  },
};
