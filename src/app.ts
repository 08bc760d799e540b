import { accountRoutes } from './accounts/routes.js';
import { auditRoutes } from './audit/routes.js';
import { apiKeyAuth } from './auth/api-key.js';
import { AuthCache } from './auth/auth-cache.js';
import { CredentialService } from './auth/credentials.service.js';
import { LastUseRecorder } from './auth/last-use.js';
import { accountOf, panelSession } from './auth/panel-session.js';
import { requireDeclaredPermissions } from './auth/route-permissions.js';
import { authRoutes } from './auth/routes.js';
import { SessionService } from './auth/sessions.js';
import { TotpService } from './auth/totp.js';
import { AccessLinks } from './auth/users/access.js';
import { teamRoutes } from './auth/users/routes.js';
import { TeamService } from './auth/users/team.js';
import { BcbCobv, BoletoIssuer, boletoRoutes, boletoSales, SandboxCobv } from './boletos/index.js';
import { checkoutRoutes } from './checkout/index.js';
import { EventFeed } from './events/feed.js';
import { eventRoutes } from './events/routes.js';
import { Event, EventPage } from './events/schemas.js';
import { openStreams } from './events/stream.js';
import { ledgerPanelRoutes } from './ledger/panel.routes.js';
import { Balance, ledgerRoutes } from './ledger/routes.js';
import type { Platform } from './platform/context.js';
import { healthRoute } from './platform/http/health.js';
import { panelSite } from './platform/http/panel-site.js';
import { installRateLimits } from './platform/http/rate-limit.js';
import { createHttp } from './platform/http/server.js';
import type { Http } from './platform/http/types.js';
import { metricsPlugin } from './platform/observability/metrics.js';
import { salesPanelRoutes } from './sales/panel.routes.js';
import { startBcb } from './sales/processors/bcb/start.js';
import { bcbWebhookRoutes } from './sales/processors/bcb/webhook.routes.js';
import { processorCallbackRoutes } from './sales/processors/callback.routes.js';
import type { SaleProcessor } from './sales/processors/processor.js';
import { pixProcessors } from './sales/processors/registry.js';
import { SandboxProcessor } from './sales/processors/sandbox.js';
import { salesRoutes } from './sales/routes.js';
import { Sale } from './sales/schemas.js';
import { SaleSettler } from './sales/settlement/settler.js';
import { sandboxCartRoutes } from './sandbox/carts.routes.js';
import { sandboxCashoutRoutes } from './sandbox/cashouts.routes.js';
import { sandboxPanelRoutes } from './sandbox/panel.routes.js';
import { sandboxRecurrenceRoutes } from './sandbox/recurrences.routes.js';
import { sandboxSalesRoutes } from './sandbox/sales.routes.js';
import { NOTIFICATION_SCHEMAS, webhookOperations } from './webhooks/notification-schemas.js';
import { webhookRoutes } from './webhooks/routes.js';
import { WebhookService } from './webhooks/service.js';
import { approvalRoutes } from './withdrawals/approval/routes.js';
import { WithdrawalCreator } from './withdrawals/creation/creator.js';
import { withdrawalPanelRoutes } from './withdrawals/panel.routes.js';
import { payoutProviders } from './withdrawals/payouts/providers.js';
import { payoutCallbackRoutes } from './withdrawals/payouts/routes.js';
import { cashoutRoutes } from './withdrawals/routes.js';
import { WithdrawalLookup } from './withdrawals/schemas.js';

/**
 * Boot order, readable in one place: infrastructure (http server, error shapes, metrics, health), then the
 * authentication hooks and domain services, then the routes of each domain.
 */
export async function buildApp(platform: Platform): Promise<Http> {
  const { config, db, reads, log, queue } = platform;

  // 1. infrastructure
  const app = await createHttp(config, log);
  await app.register(metricsPlugin, { token: config.metricsToken, db });
  const limits = installRateLimits(config, log);
  app.addHook('onClose', () => limits.close());
  healthRoute(app, db);

  // 2. authentication and services. The key cache lives with the API (worker-only processes check no key,
  // so they neither register nor make key and IP-list changes wait for them).
  const authCache = await AuthCache.start(db, log);
  app.addHook('onClose', () => authCache.stop());
  const lastUse = new LastUseRecorder(db, log);
  app.addHook('onClose', () => lastUse.close());
  const totp = new TotpService(db, config.secretsKey);
  const sessions = new SessionService(db, totp);
  const credentials = new CredentialService(db, authCache);
  const apiKey = apiKeyAuth(authCache, lastUse, limits.perKey);
  const requireSession = panelSession(sessions);
  const providers = payoutProviders(db, config);
  app.addHook('onClose', () => providers.close());
  const webhooks = new WebhookService(db, config);
  // Payment processors whose callbacks we accept; the sandbox one exists only with SANDBOX on.
  const sandboxProcessor = config.sandbox ? new SandboxProcessor(config.secretsKey) : null;
  const processors = new Map<string, SaleProcessor>(
    sandboxProcessor ? [[sandboxProcessor.name, sandboxProcessor]] : [],
  );
  const bcb = await startBcb(config, db, queue, log);
  if (bcb) {
    app.addHook('onClose', async () => {
      bcb.stop();
      await bcb.client.close();
    });
  }

  // the API document's named schemas and its webhooks section (the routes' own schemas refer to them)
  app.openapiExtras.schemas = {
    Balance,
    Withdrawal: WithdrawalLookup,
    Sale,
    Event,
    EventPage,
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
    team: new TeamService(db, mail, config.publicUrl),
    links: new AccessLinks(db, mail, config.publicUrl),
    requireSession,
    secureCookies: config.production,
    loginLimit: limits.loginPerIp,
  });
  await app.register(accountRoutes, { db, requireSession, authCache });
  await app.register(auditRoutes, { db, requireSession, accountOf: (request) => accountOf(request) });
  await app.register(ledgerRoutes, { db, apiKey });
  const feed = new EventFeed(db, platform.outbox, log);
  app.addHook('preClose', async () => {
    for (const end of [...openStreams]) end();
    feed.close();
  });
  await app.register(eventRoutes, { db, apiKey, feed });
  const creator = new WithdrawalCreator(db, queue);
  await app.register(cashoutRoutes, { db, apiKey, creator });
  await app.register(withdrawalPanelRoutes, { db, reads, creator, sessions, requireSession });
  await app.register(approvalRoutes, { db, queue, sessions, requireSession });
  await app.register(ledgerPanelRoutes, { db, reads, requireSession, cursorKey: config.secretsKey });
  await app.register(payoutCallbackRoutes, { db, providers });
  if (config.sandbox) await app.register(sandboxCashoutRoutes, { db, apiKey, providers });
  await app.register(webhookRoutes, { webhooks, requireSession, testLimit: limits.webhookTests });
  const settler = new SaleSettler(db, queue, platform.outbox);
  const processorsForSales = pixProcessors(config, sandboxProcessor, bcb?.processor ?? null);
  const cobv =
    config.pixProcessor === 'bcb' && bcb && config.bcb
      ? new BcbCobv(bcb.client, config.bcb)
      : config.pixProcessor === 'sandbox'
        ? new SandboxCobv()
        : null;
  const boletoIssuer = new BoletoIssuer(db, cobv, config.boleto, config.publicUrl);
  const charges = {
    db,
    pixProcessor: processorsForSales.pixProcessor,
    boletoSales: cobv ? boletoSales(boletoIssuer, config.webhookAllowPrivate) : null,
    allowPrivateTargets: config.webhookAllowPrivate,
  };
  await app.register(salesRoutes, { ...charges, apiKey, settler, refunders: processorsForSales.refunders });
  await app.register(boletoRoutes, { db, apiKey, settings: config.boleto });
  await app.register(checkoutRoutes, {
    db,
    publicUrl: config.publicUrl,
    apiKey,
    requireSession,
    perIp: limits.checkoutPerIp,
    pixProcessor: charges.pixProcessor,
    allowPrivateTargets: charges.allowPrivateTargets,
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
    refunders: processorsForSales.refunders,
    charges,
  });
  await app.register(sandboxPanelRoutes, { requireSession, settler: sandboxProcessor ? settler : null });
  await app.register(processorCallbackRoutes, { settler, processors });
  if (sandboxProcessor) {
    const sandbox = { db, queue, apiKey, processor: sandboxProcessor, settler };
    await app.register(sandboxSalesRoutes, sandbox);
    await app.register(sandboxRecurrenceRoutes, sandbox);
    await app.register(sandboxCartRoutes, sandbox);
  }

  // 4. the merchant panel's page (its routes are the panel routes above)
  await panelSite(app);
  return app;
}
