import { accountRoutes } from './accounts/routes.js';
import { apiKeyAuth } from './auth/api-key.js';
import { CredentialService } from './auth/credentials.service.js';
import { panelSession } from './auth/panel-session.js';
import { authRoutes } from './auth/routes.js';
import { SessionService } from './auth/sessions.js';
import { CashoutCreator } from './cashouts/batcher.js';
import { cashoutRoutes } from './cashouts/routes.js';
import { ledgerRoutes } from './ledger/routes.js';
import { payoutProviders } from './payouts/providers.js';
import { payoutCallbackRoutes } from './payouts/routes.js';
import type { Platform } from './platform/context.js';
import { createHttp, type Http } from './platform/http.js';
import { metricsPlugin } from './platform/metrics.js';
import { sandboxCashoutRoutes } from './sandbox/cashouts.routes.js';
import { webhookRoutes } from './webhooks/routes.js';
import { WebhookService } from './webhooks/service.js';

/**
 * Boot order, readable in one place: infrastructure (http server, error shapes, metrics, health), then the
 * authentication hooks and domain services, then the routes of each domain.
 */
export async function buildApp(platform: Platform): Promise<Http> {
  const { config, db, log, authCache, queue } = platform;

  // 1. infrastructure
  const app = await createHttp(config, log);
  await app.register(metricsPlugin, { token: config.metricsToken });
  app.get('/health', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await db.query('SELECT 1');
      return { status: 'ok' };
    } catch {
      return reply.code(503).send({ status: 'unavailable' });
    }
  });

  // 2. authentication and services
  const sessions = new SessionService(db);
  const credentials = new CredentialService(db, authCache);
  const apiKey = apiKeyAuth(db, authCache);
  const requireSession = panelSession(sessions);
  const providers = payoutProviders(db);
  const webhooks = new WebhookService(db, config);

  // 3. routes, one domain each
  await app.register(authRoutes, { sessions, credentials, requireSession, secureCookies: config.production });
  await app.register(accountRoutes, { db, requireSession, authCache });
  await app.register(ledgerRoutes, { db, apiKey });
  await app.register(cashoutRoutes, { db, apiKey, creator: new CashoutCreator(db, queue) });
  await app.register(payoutCallbackRoutes, { db, queue, providers });
  if (config.sandbox) await app.register(sandboxCashoutRoutes, { db, queue, apiKey, providers });
  await app.register(webhookRoutes, { webhooks, requireSession });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}
