import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import { constantTimeEqual } from '../auth/secrets.js';
import { AppError } from './errors.js';
import type { Http } from './http.js';

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

const requests = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests by route and status',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

const duration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request duration by route',
  labelNames: ['method', 'route'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
  registers: [registry],
});

export async function metricsPlugin(app: Http, opts: { token: string | undefined }): Promise<void> {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });

  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!opts.token) throw new AppError('NOT_FOUND', 'Not found');
    // RFC 9110: the auth scheme is case-insensitive ("bearer" is as good as "Bearer")
    const match = /^bearer +(.*)$/i.exec(request.headers.authorization ?? '');
    if (!constantTimeEqual(match?.[1] ?? '', opts.token))
      throw new AppError('UNAUTHORIZED', 'Bearer token required');
    return reply.header('content-type', registry.contentType).send(await registry.metrics());
  });
}

// Not encapsulated (what fastify-plugin does): the onResponse hook must see every route, not only /metrics.
Object.assign(metricsPlugin, { [Symbol.for('skip-override')]: true });
