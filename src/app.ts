import {
  accountName,
  accountRoutes,
  accountStanding,
  feeRoutes,
  setDefaultFeePlan,
} from './accounts/index.js';
import { Anticipations, anticipationRoutes } from './anticipations/index.js';
import { auditRoutes } from './audit/index.js';
import {
  AccessLinks,
  AuthCache,
  accountOf,
  apiKeyAuth,
  authRoutes,
  CredentialService,
  keyRecheck,
  LastUseRecorder,
  panelSession,
  publicKeyAuth,
  requireDeclaredPermissions,
  SessionService,
  TeamService,
  TotpService,
  teamRoutes,
} from './auth/index.js';
import { boletoRoutes, boletoSales } from './boletos/index.js';
import { CardTokens, cardFingerprint, cardRoutes, cieloChargebackSource, payerCards } from './cards/index.js';
import { startCharging } from './charging.js';
import { checkoutRoutes } from './checkout/index.js';
import { ConsoleActions, consoleRoutes } from './console/index.js';
import { Customers, customerPanelRoutes, customerRoutes } from './customers/index.js';
import { cardNoticeRoutes, Dispute, DisputePage, Disputes, disputeRoutes } from './disputes/index.js';
import { Event, EventFeed, EventPage, eventRoutes, openStreams } from './events/index.js';
import { Balance, ledgerPanelRoutes, ledgerRoutes } from './ledger/index.js';
import { Onboarding, onboardingRoutes } from './onboarding/index.js';
import {
  OperatorInvitations,
  OperatorSessions,
  OperatorStaff,
  operatorRoutes,
  operatorSession,
  requireDeclaredOpsRoles,
} from './operators/index.js';
import { bcbWebhookRoutes, startBcb } from './pix/index.js';
import type { Platform } from './platform/context.js';
import { shedChargesWhenBusy } from './platform/http/charge-shedding.js';
import { healthRoute } from './platform/http/health.js';
import { panelSite } from './platform/http/panel-site.js';
import { installRateLimits } from './platform/http/rate-limit.js';
import { createHttp } from './platform/http/server.js';
import type { CardAttemptCheck, Http } from './platform/http/types.js';
import { metricsPlugin } from './platform/observability/metrics.js';
import { Recipients, recipientPanelRoutes, recipientRoutes } from './recipients/index.js';
import { Reconciliation } from './reconciliation/index.js';
import type { SaleProcessor } from './sales/index.js';
import { processorCallbackRoutes, Sale, SaleSettler, salesPanelRoutes, salesRoutes } from './sales/index.js';
import {
  sandboxAnticipationRoutes,
  sandboxCartRoutes,
  sandboxCashoutRoutes,
  sandboxDisputeRoutes,
  sandboxPanelRoutes,
  sandboxRecurrenceRoutes,
  sandboxSalesRoutes,
  sandboxSubscriptionRoutes,
} from './sandbox/index.js';
import { billingPageRoutes, CustomerPage, subscriptionRoutes } from './subscriptions/index.js';
import {
  NOTIFICATION_SCHEMAS,
  readBacklog,
  WebhookService,
  webhookOperations,
  webhookRoutes,
} from './webhooks/index.js';
import {
  approvalRoutes,
  cashoutRoutes,
  payoutCallbackRoutes,
  payoutProviders,
  WithdrawalCreator,
  WithdrawalLookup,
  withdrawalPanelRoutes,
} from './withdrawals/index.js';

/**
 * Boot order, readable in one place: infrastructure (http server, error shapes, metrics, health), then the
 * authentication hooks and domain services, then the routes of each domain.
 */
export async function buildApp(platform: Platform): Promise<Http> {
  const { config, db, reads, log, queue } = platform;

  // 1. infrastructure
  const app = await createHttp(config, log);
  shedChargesWhenBusy(app, config.chargeShedUtilization, () => db.waiting);
  await app.register(metricsPlugin, { token: config.metricsToken, db, readBacklog });
  const limits = installRateLimits(config, log);
  app.addHook('onClose', () => limits.close());
  healthRoute(app, db);

  // 2. authentication and services. The key cache lives with the API (worker-only processes check no key,
  // so they neither register nor make key and IP-list changes wait for them).
  const authCache = await AuthCache.start(db, log, accountStanding);
  app.addHook('onClose', () => authCache.stop());
  const lastUse = new LastUseRecorder(db, log);
  app.addHook('onClose', () => lastUse.close());
  const totp = new TotpService(db, config.secretsKey);
  const sessions = new SessionService(db, totp, (accountId) => authCache.account(accountId));
  const credentials = new CredentialService(db, authCache);
  const apiKey = apiKeyAuth(authCache, lastUse, limits.perKey);
  const requireSession = panelSession(sessions, authCache);
  const providers = payoutProviders(db, config);
  app.addHook('onClose', () => providers.close());
  const webhooks = new WebhookService(db, config);
  // Payment processors whose callbacks we accept; the sandbox one exists only with SANDBOX on.
  const bcb = await startBcb(config, db, queue, log);
  if (bcb) {
    app.addHook('onClose', async () => {
      bcb.stop();
      await bcb.client.close();
    });
  }
  // what opens and charges sales: the same factory as the workers'
  const charging = await startCharging(platform, bcb);
  app.addHook('onClose', () => charging.close());
  const sandboxProcessor = charging.sandbox;
  const processors = new Map<string, SaleProcessor>(
    sandboxProcessor ? [[sandboxProcessor.name, sandboxProcessor]] : [],
  );

  // the API document's named schemas and its webhooks section (the routes' own schemas refer to them)
  app.openapiExtras.schemas = {
    Balance,
    Withdrawal: WithdrawalLookup,
    Sale,
    Event,
    EventPage,
    Dispute,
    DisputePage,
    ...NOTIFICATION_SCHEMAS,
  };
  app.openapiExtras.webhooks = webhookOperations();

  const mail = { queue, key: config.secretsKey };

  // 3. routes, one domain each (a panel route without a declared permission fails here)
  requireDeclaredPermissions(app);
  await app.register(authRoutes, {
    sessions,
    credentials,
    totp,
    requireSession,
    secureCookies: config.production,
    loginLimit: limits.loginPerIp,
  });
  await app.register(teamRoutes, {
    team: new TeamService(db, mail, config.publicUrl, accountName),
    links: new AccessLinks(db, mail, config.publicUrl),
    requireSession,
    secureCookies: config.production,
    loginLimit: limits.loginPerIp,
  });
  await app.register(accountRoutes, { db, requireSession, authCache });
  setDefaultFeePlan(config.feePlanDefault);
  await app.register(feeRoutes, { db, apiKey, requireSession });
  requireDeclaredOpsRoles(app);
  const operatorSessions = new OperatorSessions(db, config.secretsKey);
  await app.register(operatorRoutes, {
    db,
    sessions: operatorSessions,
    invitations: new OperatorInvitations(db, mail, config.secretsKey, config.publicUrl),
    staff: new OperatorStaff(db),
    secureCookies: config.production,
    loginLimit: limits.loginPerIp,
  });
  const anticipations = new Anticipations(db, config.anticipationAutoApprove);
  const { risk: riskRules, acquirer, cardSales, subscriptions } = charging;
  await app.register(consoleRoutes, {
    db,
    anticipations,
    riskRules,
    reconciliation: new Reconciliation(db, queue, config.bcb !== null),
    actions: new ConsoleActions(db, queue, mail, authCache, {
      heldCards: cardSales,
      subscriptions,
      cancelOpenCharges: charging.cancelAccountCharges,
    }),
    requireOperator: operatorSession(operatorSessions),
    webhooks,
  });
  await app.register(onboardingRoutes, {
    onboarding: new Onboarding(db),
    sessions,
    requireSession,
    secureCookies: config.production,
    signup: config.signup,
    loginLimit: limits.loginPerIp,
  });
  await app.register(auditRoutes, { db, requireSession, accountOf: (request) => accountOf(request) });
  await app.register(ledgerRoutes, { db, apiKey });
  await app.register(anticipationRoutes, { db, anticipations, apiKey, requireSession });
  const customers = new Customers(db);
  await app.register(customerRoutes, { customers, apiKey, requireSession });
  await app.register(customerPanelRoutes, { customers, requireSession });
  const feed = new EventFeed(db, platform.outbox, log);
  app.addHook('preClose', async () => {
    for (const end of [...openStreams]) end();
    feed.close();
  });
  await app.register(eventRoutes, { db, apiKey, keyRecheck: keyRecheck(authCache), feed });
  const creator = new WithdrawalCreator(db, queue);
  const recipients = new Recipients(db);
  await app.register(cashoutRoutes, { db, apiKey, creator, recipientOf: (a, id) => recipients.payee(a, id) });
  await app.register(withdrawalPanelRoutes, { db, reads, creator, sessions, requireSession });
  await app.register(approvalRoutes, { db, queue, sessions, requireSession });
  await app.register(ledgerPanelRoutes, { db, reads, requireSession, cursorKey: config.secretsKey });
  await app.register(payoutCallbackRoutes, { db, providers });
  if (config.sandbox) await app.register(sandboxCashoutRoutes, { db, apiKey, providers });
  await app.register(webhookRoutes, { webhooks, requireSession, apiKey, testLimit: limits.webhookTests });
  const settler = new SaleSettler(db, queue, platform.outbox);
  const cardTokens = new CardTokens(db, acquirer, config.secretsKey);
  const charges = { db, methods: charging.methods, risk: riskRules, queue };
  // the payer pages' cards: none through the sandbox acquirer unless SANDBOX is on
  const payerCardPort = charging.cardCharger ? payerCards(cardTokens, cardSales) : null;
  await app.register(salesRoutes, { ...charges, apiKey, requireSession, settler });
  await app.register(boletoRoutes, {
    db,
    apiKey,
    settings: config.boleto,
    perIp: limits.boletoPdfPerIp,
    testMode: config.sandbox,
  });
  // card testing: each tokenization counted by source address and by the card's fingerprint (never its number)
  const cardAttempts = limits.cardAttempts;
  const cardAttempt: CardAttemptCheck | null = cardAttempts
    ? async (request, reply, number) => {
        await cardAttempts(request, reply, cardFingerprint(config.secretsKey, number));
      }
    : null;
  await app.register(cardRoutes, {
    apiKey,
    requireSession,
    sales: cardSales,
    tokens: cardTokens,
    publicKey: publicKeyAuth(authCache, lastUse, limits.perKey, limits.publicKey),
    cardAttempt,
  });
  await app.register(checkoutRoutes, {
    db,
    publicUrl: config.publicUrl,
    apiKey,
    requireSession,
    perIp: limits.checkoutPerIp,
    cardAttempt,
    pixProcessor: charging.pixProcessor,
    boletoSales: charging.issuesBoletos
      ? boletoSales(charging.boletoIssuer, config.webhookAllowPrivate)
      : null,
    cards: payerCardPort,
    allowPrivateTargets: config.webhookAllowPrivate,
    risk: riskRules,
    queue,
    feed,
    streamsPerIp: config.checkoutStreamsPerIp,
    testMode: config.sandbox,
  });
  if (bcb) {
    const recurrenceAccountId = config.bcb?.recurrenceAccountId ?? null;
    await app.register(bcbWebhookRoutes, { db, queue, settler, client: bcb.client, recurrenceAccountId });
  }
  await app.register(salesPanelRoutes, {
    db,
    reads,
    requireSession,
    settler,
    charges,
  });
  await app.register(sandboxPanelRoutes, {
    db,
    requireSession,
    settler: sandboxProcessor ? settler : null,
    cashouts: config.sandbox ? { db, providers } : null,
  });
  await app.register(processorCallbackRoutes, { settler, processors });
  const disputes = new Disputes(db, queue, mail, config.publicUrl);
  await app.register(disputeRoutes, { db, disputes, apiKey, requireSession });
  await app.register(recipientRoutes, {
    recipients,
    apiKey,
    requireSession,
    reads,
    cursorKey: config.secretsKey,
  });
  await app.register(recipientPanelRoutes, { reads, requireSession });
  const cielo = config.cards.cielo;
  const chargebackSource = cielo ? cieloChargebackSource(db, cielo) : null;
  if (chargebackSource) app.addHook('onClose', () => chargebackSource.close());
  await app.register(cardNoticeRoutes, {
    db,
    queue,
    disputes,
    source: chargebackSource,
    secret: cielo?.notificationSecret ?? null,
  });
  if (sandboxProcessor) {
    const sandbox = {
      db,
      queue,
      apiKey,
      requireSession,
      processor: sandboxProcessor,
      settler,
      risk: riskRules,
    };
    await app.register(sandboxSalesRoutes, sandbox);
    await app.register(sandboxRecurrenceRoutes, sandbox);
    await app.register(sandboxCartRoutes, sandbox);
    await app.register(sandboxDisputeRoutes, { db, apiKey, disputes });
    await app.register(sandboxAnticipationRoutes, { apiKey, anticipations });
  }
  await app.register(subscriptionRoutes, { subscriptions, apiKey, requireSession });
  await app.register(billingPageRoutes, {
    page: new CustomerPage(db, subscriptions, payerCardPort ? payerCardPort.tokenize : null, (id, due) =>
      charging.biller.chargeNowOrAwait(id, due),
    ),
    perIp: limits.checkoutPerIp,
    cardAttempt,
    testMode: config.sandbox,
  });
  if (config.sandbox) {
    // the sandbox's advance runs the scheduler's own biller
    await app.register(sandboxSubscriptionRoutes, { apiKey, biller: charging.biller });
  }

  // 4. the merchant panel's page (its routes are the panel routes above)
  await panelSite(app);
  return app;
}
