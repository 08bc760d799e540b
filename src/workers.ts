import { ensureAuditPartitions } from './audit/index.js';
import { AUTH_CLEANUP_EVERY_MS, deleteExpiredAuthRows } from './auth/index.js';
import { cieloChargebackSource, deleteExpiredCardTokens, RISK_HOLD_EXPIRY_EVERY_MS } from './cards/index.js';
import { startCharging } from './charging.js';
import { abandonCheckoutCarts, CART_ABANDON_CHECK_EVERY_MS } from './checkout/index.js';
import {
  DEADLINE_CHECK_EVERY_MS,
  Disputes,
  MED_CHECK_EVERY_MS,
  MED_WINDOW_DAYS,
  NoInfractionList,
  openNotifiedChargeback,
  readMedNotices,
  sendDefence,
} from './disputes/index.js';
import { ensureLedgerPartitions, settleDueReceivables } from './ledger/index.js';
import { startMailWorker } from './mail/index.js';
import { PixApiClient } from './payment-standards/index.js';
import { BcbProcessor, checkDevolucoes, DEVOLUCAO_CHECK_EVERY_MS } from './pix/index.js';
import type { Platform } from './platform/context.js';
import { startPeriodic } from './platform/jobs/periodic.js';
import { AUTO_PAYOUT_CHECK_EVERY_MS, runAutomaticPayouts } from './recipients/index.js';
import { startReconciliation } from './reconciliation/index.js';
import { expireRiskReview } from './risk/index.js';
import {
  CALLBACK_CLEANUP_EVERY_MS,
  CHARGE_EXPIRY_EVERY_MS,
  cancelSessionCharges,
  deleteExpiredSaleKeys,
  deleteStaleCallbacks,
  FORGOTTEN_REFUND_CHECK_EVERY_MS,
  releaseForgottenRefunds,
  SaleSettler,
  startReserveWorker,
} from './sales/index.js';
import { BILLING_EVERY_MS } from './subscriptions/index.js';
import {
  ensureNotificationPartitions,
  pruneNotifications,
  RETENTION_EVERY_MS,
  startNotificationWorkers,
} from './webhooks/index.js';
import {
  deleteExpiredKeys,
  KEY_CLEANUP_EVERY_MS,
  payoutProviders,
  startApprovalWorker,
  startOverdueCheck,
  startPayoutWorker,
  startSandboxPayoutCompletion,
} from './withdrawals/index.js';

/**
 * Every background worker of every domain, started by `gateway serve` and `gateway worker`. Returns a stop
 * function for the loops that are not pg-boss handlers (pg-boss handlers stop with the queue).
 */
const RECEIVABLES_EVERY_MS = 3_600_000;
/** How often the workers make sure the coming months' partitions exist. */
const PARTITIONS_EVERY_MS = 3_600_000;

export async function startWorkers(platform: Platform): Promise<() => Promise<void>> {
  const { db, log } = platform;
  const providers = payoutProviders(db, platform.config);
  if (!providers.active) {
    log.warn('PAYOUT_PROVIDER=none: accepted withdrawals stay PENDING until a payout provider is set');
  }
  const stopPayouts = providers.active
    ? await startPayoutWorker(platform, providers.active)
    : async () => undefined;
  const stopOverdue = startOverdueCheck(platform, (name) => providers.byName(name));
  // the sandbox pays its payouts by itself, SANDBOX_CASHOUT_DELAY_MS after they were sent
  const stopSandboxPayouts = platform.config.sandbox
    ? startSandboxPayoutCompletion(platform, providers.sandbox, platform.config.sandboxCashoutDelayMs)
    : () => undefined;
  await startReserveWorker(platform.db, platform.queue);
  // recipients paid by transferInterval: each period's payout once at 06:00 São Paulo, whichever worker looks
  const stopAutoPayouts = startPeriodic(
    AUTO_PAYOUT_CHECK_EVERY_MS,
    () =>
      runAutomaticPayouts(db, platform.queue, new Date(), (err, recipientId) =>
        log.warn({ err, recipientId }, "a recipient's automatic payout failed; will retry"),
      ),
    (err) => log.warn({ err }, 'automatic payouts failed; will retry'),
  );
  const stopKeyCleanup = startPeriodic(
    KEY_CLEANUP_EVERY_MS,
    () => Promise.all([deleteExpiredKeys(db), deleteExpiredSaleKeys(db), deleteExpiredCardTokens(db)]),
    (err) => log.warn({ err }, 'idempotency key cleanup failed'),
  );
  const stopCallbackCleanup = startPeriodic(
    CALLBACK_CLEANUP_EVERY_MS,
    () => deleteStaleCallbacks(db),
    (err) => log.warn({ err }, 'processor callback cleanup failed'),
  );
  // expired bcb charges are read back from the PSP before they are cancelled (a late webhook must not lose a sale)
  const bcbSettings = platform.config.bcb;
  const pspClient = bcbSettings ? new PixApiClient(bcbSettings) : null;
  const bcb = pspClient && bcbSettings ? new BcbProcessor(pspClient, bcbSettings, db, platform.queue) : null;
  // bcb refunds whose callback never comes are read back from the PSP
  const settler = new SaleSettler(db, platform.queue, platform.outbox);
  const stopDevolucoes = pspClient
    ? startPeriodic(
        DEVOLUCAO_CHECK_EVERY_MS,
        () => checkDevolucoes(db, settler, pspClient),
        (err) => log.warn({ err }, 'bcb refund read-back failed'),
      )
    : () => undefined;
  // the PSP's own list of received Pix against the gateway's credits (webhooks are best-effort)
  const stopReconciliation = pspClient
    ? await startReconciliation(platform, pspClient, settler)
    : () => undefined;
  // what opens and charges sales (renewals included): the same factory as the API's, risk rules and all
  const charging = await startCharging(
    platform,
    pspClient && bcb ? { client: pspClient, processor: bcb } : null,
  );
  // a paid checkout session's other charges awaiting payment, cancelled at the PSP and here
  await platform.queue.work('sales.cancel-session-charges', { batchSize: 1 }, async (jobs) => {
    for (const job of jobs) {
      await cancelSessionCharges(db, platform.queue, charging.pixProcessor, job.data.saleId);
    }
  });
  // a closed account's open charges, once more after the close (one admitted as it committed), cancelled
  await platform.queue.work('sales.cancel-account-charges', { batchSize: 1 }, async (jobs) => {
    for (const job of jobs) await charging.cancelAccountCharges(job.data.accountId);
  });
  // a card refund whose answer was lost is asked about at the acquirer before it is given up
  const refunders = new Map([[charging.cardRefunds.name, charging.cardRefunds]]);
  const stopForgottenHolds = startPeriodic(
    FORGOTTEN_REFUND_CHECK_EVERY_MS,
    async () => {
      const released = await releaseForgottenRefunds(db, platform.queue, refunders);
      if (released > 0)
        log.warn(
          { released },
          'refunds no processor was working on ended as not made: their money given back',
        );
    },
    (err) => log.warn({ err }, 'refund hold check failed'),
  );
  // a payer who gave their data on a checkout page and did not pay: cart.abandoned, and the recovery e-mail
  const stopCartAbandonment = startPeriodic(
    CART_ABANDON_CHECK_EVERY_MS,
    () =>
      abandonCheckoutCarts(
        db,
        { queue: platform.queue, key: platform.config.secretsKey },
        platform.config.cartAbandonAfterMinutes,
      ),
    (err) => log.warn({ err }, 'checkout cart abandonment failed; will retry'),
  );
  // each payment method's sales brought up to what their processor says: expired charges read back (a late
  // webhook must not lose a sale) and cancelled, card authorizations whose outcome was lost asked about at the
  // acquirer, authorizations not captured within 7 days voided there
  const stopStatuses = startPeriodic(
    CHARGE_EXPIRY_EVERY_MS,
    () => charging.methods.refreshStatuses(log),
    (err) => log.warn({ err }, 'sale status refresh failed; will retry'),
  );
  const { cardSales, biller } = charging;
  // card installments reach available on their date: checked every hour, each moved once
  const stopReceivables = startPeriodic(
    RECEIVABLES_EVERY_MS,
    () => settleDueReceivables(db),
    (err) => log.warn({ err }, 'receivables settlement failed; will retry'),
  );
  const stopCardJobs = startPeriodic(
    RISK_HOLD_EXPIRY_EVERY_MS,
    // authorizations held for a risk review nobody decided within RISK_REVIEW_HOURS are voided
    () => cardSales.expireRiskHolds(platform.config.riskReviewHours, expireRiskReview, log),
    (err) => log.warn({ err }, 'card risk review expiry failed; will retry'),
  );
  // subscriptions: each due period charged once (claims in the database), its outcome applied when its sale ends
  const stopBilling = startPeriodic(
    BILLING_EVERY_MS,
    () => biller.run(),
    (err) => log.warn({ err }, 'subscription billing round failed; will retry'),
  );
  const disputes = new Disputes(
    db,
    platform.queue,
    { queue: platform.queue, key: platform.config.secretsKey },
    platform.config.publicUrl,
  );
  const stopDisputeDeadlines = startPeriodic(
    DEADLINE_CHECK_EVERY_MS,
    async () => {
      await disputes.expireOverdue();
      await disputes.remindDue();
    },
    (err) => log.warn({ err }, 'dispute deadline check failed'),
  );
  // the PSP's MED notices: Efí's infraction list, read with the bcb processor's client
  const stopMedNotices = pspClient
    ? startPeriodic(
        MED_CHECK_EVERY_MS,
        () =>
          readMedNotices(db, disputes, (path) => pspClient.call('GET', path), {
            from: new Date(Date.now() - MED_WINDOW_DAYS * 86_400_000),
            to: new Date(),
          }),
        (err) => {
          if (!(err instanceof NoInfractionList)) return log.warn({ err }, 'MED infraction read failed');
          // said once, and not asked again: a PSP of the standard alone (not Efí) tells MEDs by devoluções only
          log.info({ err: err.message }, 'MED infraction list not offered by the PSP: not read again');
          stopMedNotices();
        },
        // read at once too: a worker (re)started does not leave a MED unknown for ten minutes
        { atStart: true },
      )
    : () => undefined;
  const cielo = platform.config.cards.cielo;
  const chargebackSource = cielo ? cieloChargebackSource(db, cielo) : null;
  if (chargebackSource) {
    await platform.queue.work('disputes.card-notice', { batchSize: 1 }, async (jobs) => {
      for (const job of jobs)
        await openNotifiedChargeback(disputes, chargebackSource, job.data.paymentId, log);
    });
  }
  if (pspClient) {
    await platform.queue.work('disputes.defend', { batchSize: 1 }, async (jobs) => {
      for (const job of jobs) {
        await sendDefence(db, (path, body) => pspClient.call('POST', path, body), job.data.disputeId);
      }
    });
  }
  const stopAuthCleanup = startPeriodic(
    AUTH_CLEANUP_EVERY_MS,
    () => deleteExpiredAuthRows(db),
    (err) => log.warn({ err }, 'expired session and login-failure cleanup failed'),
  );
  // the coming months' partitions, at start and every hour (a missing month refuses its table's inserts)
  const keepMonthsAhead = async () => {
    const made =
      (await ensureNotificationPartitions(db)) +
      (await ensureLedgerPartitions(db)) +
      (await ensureAuditPartitions(db));
    if (made > 0) log.info({ made }, 'partitions created for the coming months');
  };
  await keepMonthsAhead();
  const stopPartitions = startPeriodic(PARTITIONS_EVERY_MS, keepMonthsAhead, (err) =>
    log.error({ err }, 'creating the coming months of the partitioned tables failed'),
  );
  // months of notification history past NOTIFICATION_RETENTION_DAYS (events are kept at least 30 days)
  const stopRetention = startPeriodic(
    RETENTION_EVERY_MS,
    () =>
      pruneNotifications(db, new Date(Date.now() - platform.config.notificationRetentionDays * 86_400_000)),
    (err) => log.warn({ err }, 'notification retention prune failed'),
  );
  const stopNotifications = await startNotificationWorkers(platform);
  const stopMail = await startMailWorker(platform);
  const stopApprovals = await startApprovalWorker(platform);
  return async () => {
    stopApprovals();
    await stopMail();
    await stopPayouts();
    stopOverdue();
    stopSandboxPayouts();
    await providers.close();
    stopStatuses();
    stopDevolucoes();
    stopReconciliation();
    stopForgottenHolds();
    stopCartAbandonment();
    stopCardJobs();
    stopBilling();
    stopReceivables();
    await charging.close();
    stopDisputeDeadlines();
    stopMedNotices();
    await chargebackSource?.close();
    await pspClient?.close();
    stopKeyCleanup();
    stopAutoPayouts();
    stopCallbackCleanup();
    stopAuthCleanup();
    stopRetention();
    stopPartitions();
    await stopNotifications();
  };
}
