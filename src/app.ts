import { accountRoutes } from './accounts/routes.js';
import { apiKeyAuth } from './auth/api-key.js';
import { CredentialService } from './auth/credentials.service.js';
import { panelSession } from './auth/panel-session.js';
import { authRoutes } from './auth/routes.js';
import { SessionService } from './auth/sessions.js';
import { ledgerRoutes } from './ledger/routes.js';
import type { Platform } from './platform/context.js';
import { createHttp, type Http } from './platform/http.js';
import { metricsPlugin } from './platform/metrics.js';
import { webhookRoutes } from './webhooks/routes.js';
import { WebhookService } from './webhooks/service.js';

/**
 * Boot order, readable in one place: infrastructure (http server, error shapes, metrics, health), then the
 * authentication hooks and domain services, then the routes of each domain.
 */
export async function buildApp(platform: Platform): Promise<Http> {
  const { config, db, log, authCache } = platform;

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
  const credentials = new CredentialService(db);
  const apiKey = apiKeyAuth(db, authCache);
  const requireSession = panelSession(sessions);
  const webhooks = new WebhookService(db, config);

  // 3. routes, one domain each
  await app.register(authRoutes, { sessions, credentials, requireSession, secureCookies: config.production });
  await app.register(accountRoutes, { db, requireSession });
  await app.register(ledgerRoutes, { db, apiKey });
  await app.register(webhookRoutes, { webhooks, requireSession });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}
