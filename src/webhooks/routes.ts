import { Type } from 'typebox';
import { sessionOf } from '../auth/panel-session.js';
import type { AuthHook, Http } from '../platform/http.js';
import { numericPathId } from '../platform/ids.js';
import * as S from './schemas.js';
import type { WebhookService } from './service.js';

const A = { errorShape: 'A' as const };
const DEFAULT_LIMIT = 20;
const webhookId = (raw: string) => numericPathId(raw, 'Webhook not found');

export async function webhookRoutes(
  app: Http,
  deps: { webhooks: WebhookService; requireSession: AuthHook },
): Promise<void> {
  const { webhooks, requireSession } = deps;
  // every route of this (encapsulated) plugin is a panel route: session, and CSRF on state changes
  app.addHook('onRequest', requireSession);
  const account = (request: Parameters<typeof sessionOf>[0]) => sessionOf(request).user.id;

  app.post(
    '/api/webhook',
    {
      config: A,
      schema: {
        tags: ['webhooks'],
        body: S.CreateBody,
        response: { 201: S.CreatedWebhook, 400: S.ShapeA, 401: S.ShapeA, 403: S.ShapeA },
      },
    },
    async (request, reply) => {
      const created = await webhooks.create(account(request), request.body);
      return reply.code(201).header('cache-control', 'no-store').send(created);
    },
  );

  app.get(
    '/api/webhook',
    {
      config: A,
      schema: { tags: ['webhooks'], response: { 200: Type.Array(S.Webhook), 401: S.ShapeA } },
    },
    async (request) => webhooks.list(account(request)),
  );

  app.put(
    '/api/webhook/:id',
    {
      config: A,
      schema: {
        tags: ['webhooks'],
        params: S.IdParam,
        body: S.UpdateBody,
        response: { 200: S.Webhook, 400: S.ShapeA, 401: S.ShapeA, 403: S.ShapeA, 404: S.ShapeA },
      },
    },
    async (request) => webhooks.update(account(request), webhookId(request.params.id), request.body),
  );

  app.delete(
    '/api/webhook/:id',
    {
      config: A,
      schema: {
        tags: ['webhooks'],
        params: S.IdParam,
        response: { 204: S.NoContent, 400: S.ShapeA, 401: S.ShapeA, 403: S.ShapeA, 404: S.ShapeA },
      },
    },
    async (request, reply) => {
      await webhooks.remove(account(request), webhookId(request.params.id));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/webhook/:id/deliveries',
    {
      config: A,
      schema: {
        tags: ['webhooks'],
        params: S.IdParam,
        querystring: S.DeliveriesQuery,
        response: { 200: Type.Array(S.Delivery), 400: S.ShapeA, 401: S.ShapeA, 404: S.ShapeA },
      },
    },
    async (request) =>
      webhooks.deliveries(
        account(request),
        webhookId(request.params.id),
        request.query.limit === undefined ? DEFAULT_LIMIT : Number(request.query.limit),
      ),
  );

  app.post(
    '/api/webhook/deliveries/:id/resend',
    {
      config: A,
      schema: {
        tags: ['webhooks'],
        params: S.IdParam,
        response: { 202: S.Delivery, 400: S.ShapeA, 401: S.ShapeA, 403: S.ShapeA, 404: S.ShapeA },
      },
    },
    async (request, reply) => {
      const delivery = await webhooks.resend(
        account(request),
        numericPathId(request.params.id, 'Delivery not found'),
      );
      return reply.code(202).send(delivery);
    },
  );
}
