import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { apiKeyActor, userActor } from '../audit/index.js';
import { accountOf, sessionOf } from '../auth/index.js';
import { validation } from '../platform/errors/app-error.js';
import { AnyDoorForbiddenBody, errorAnswers } from '../platform/http/error-schemas.js';
import { sendJsonText } from '../platform/http/json-reply.js';
import type { Limiter } from '../platform/http/rate-limit.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { numericPathId } from '../platform/ids/public-ids.js';
import { parseLimit } from '../platform/paging/pagination.js';
import { isRealCalendarTime } from '../platform/time/calendar.js';
import {
  CreateBody,
  CreatedWebhook,
  DeliveriesQuery,
  Delivery,
  EnvelopeErrorBody,
  IdParam,
  NoContent,
  RecoverBody,
  Recovered,
  RotateBody,
  RotatedSecret,
  Stats,
  StatsQuery,
  TestQueued,
  UpdateBody,
  Webhook,
} from './schemas.js';
import type { WebhookService } from './webhooks.js';

const A = { errorShape: 'envelope' as const, permission: 'integrations' as const };
const webhookId = (raw: string) => numericPathId(raw, 'Webhook not found');

export async function webhookRoutes(
  app: Http,
  deps: {
    webhooks: WebhookService;
    requireSession: AuthHook;
    /** The API-key hook: a key pair opens these routes too (a full key every one, a read key the GETs). */
    apiKey: AuthHook;
    testLimit?: Limiter<number> | null;
  },
): Promise<void> {
  const { webhooks, requireSession, apiKey, testLimit = null } = deps;
  // a panel session (CSRF on state changes, the role's permission), or an API key pair whose scope covers the
  // route (GETs need read, changes full: integrators register webhooks without a browser)
  app.addHook('onRequest', async (request, reply) => {
    const byKey =
      request.headers['x-api-public-key'] !== undefined || request.headers['x-api-private-key'] !== undefined;
    return byKey ? apiKey(request, reply) : requireSession(request, reply);
  });
  const account = (request: FastifyRequest) => request.merchant?.accountId ?? accountOf(request);
  const actor = (request: FastifyRequest) =>
    request.merchant ? apiKeyActor(request, request.merchant) : userActor(request, sessionOf(request).user);

  app.post(
    '/api/webhook',
    {
      config: A,
      schema: {
        summary: 'Create a permanent webhook (its secret is shown once)',
        tags: ['webhooks'],
        body: CreateBody,
        response: {
          201: CreatedWebhook,
          ...errorAnswers(EnvelopeErrorBody, [400, 401]),
          // a key's scope refused in shape D (decisions.md), a user's role in shape A, the key's address in B
          403: AnyDoorForbiddenBody,
        },
      },
    },
    async (request, reply) => {
      const created = await webhooks.create(account(request), request.body, actor(request));
      return reply.code(201).header('cache-control', 'no-store').send(created);
    },
  );

  app.get(
    '/api/webhook',
    {
      config: A,
      schema: {
        summary: "The account's permanent webhooks",
        tags: ['webhooks'],
        response: { 200: Type.Array(Webhook), 401: EnvelopeErrorBody },
      },
    },
    async (request) => webhooks.list(account(request)),
  );

  app.put(
    '/api/webhook/:id',
    {
      config: { ...A, errors: ['NOT_FOUND'] },
      schema: {
        summary: "Change a webhook's URL, events or status",
        tags: ['webhooks'],
        params: IdParam,
        body: UpdateBody,
        response: {
          200: Webhook,
          ...errorAnswers(EnvelopeErrorBody, [400, 401, 404]),
          // a key's scope refused in shape D (decisions.md), a user's role in shape A, the key's address in B
          403: AnyDoorForbiddenBody,
        },
      },
    },
    async (request) =>
      webhooks.update(account(request), webhookId(request.params.id), request.body, actor(request)),
  );

  app.delete(
    '/api/webhook/:id',
    {
      config: { ...A, errors: ['NOT_FOUND'] },
      schema: {
        summary: 'Delete a webhook (its queued deliveries are not sent)',
        tags: ['webhooks'],
        params: IdParam,
        response: {
          204: NoContent,
          ...errorAnswers(EnvelopeErrorBody, [400, 401, 404]),
          // a key's scope refused in shape D (decisions.md), a user's role in shape A, the key's address in B
          403: AnyDoorForbiddenBody,
        },
      },
    },
    async (request, reply) => {
      await webhooks.remove(account(request), webhookId(request.params.id), actor(request));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/webhook/:id/deliveries',
    {
      config: { ...A, errors: ['NOT_FOUND'] },
      schema: {
        summary: "A webhook's delivery log, newest first, with each attempt",
        tags: ['webhooks'],
        params: IdParam,
        querystring: DeliveriesQuery,
        response: {
          200: Type.Array(Delivery),
          ...errorAnswers(EnvelopeErrorBody, [400, 401, 404]),
        },
      },
    },
    async (request, reply) =>
      sendJsonText(
        reply,
        200,
        await webhooks.deliveriesJson(
          account(request),
          webhookId(request.params.id),
          parseLimit(request.query.limit),
        ),
      ),
  );

  app.post(
    '/api/webhook/deliveries/:id/resend',
    {
      config: { ...A, errors: ['NOT_FOUND'] },
      schema: {
        summary: 'Send one delivery again (same event id, new timestamp)',
        description:
          'Answers the delivery as queued again: `status` PENDING, while `statusCode`, `error` and `lastAttemptAt` ' +
          'still tell its last attempt until the new one is made (the delivery log then shows it, attempts + 1).',
        tags: ['webhooks'],
        params: IdParam,
        response: {
          202: Delivery,
          ...errorAnswers(EnvelopeErrorBody, [400, 401, 404]),
          // a key's scope refused in shape D (decisions.md), a user's role in shape A, the key's address in B
          403: AnyDoorForbiddenBody,
        },
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

  app.post(
    '/api/webhook/:id/rotate-secret',
    {
      config: { ...A, errors: ['NOT_FOUND'] },
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags: ['webhooks'],
        summary: 'New signing secret; the old one keeps signing during the overlap',
        params: IdParam,
        body: RotateBody,
        response: {
          200: RotatedSecret,
          ...errorAnswers(EnvelopeErrorBody, [400, 401, 404]),
          // a key's scope refused in shape D (decisions.md), a user's role in shape A, the key's address in B
          403: AnyDoorForbiddenBody,
        },
      },
    },
    async (request, reply) => {
      const rotated = await webhooks.rotateSecret(
        account(request),
        webhookId(request.params.id),
        request.body.overlapHours ?? 24,
        actor(request),
      );
      return reply.header('cache-control', 'no-store').send(rotated);
    },
  );

  app.post(
    '/api/webhook/:id/test',
    {
      config: { ...A, errors: ['NOT_FOUND', 'RATE_LIMITED'] },
      schema: {
        tags: ['webhooks'],
        summary: 'Send a signed webhook.test delivery to this webhook',
        params: IdParam,
        response: {
          202: TestQueued,
          ...errorAnswers(EnvelopeErrorBody, [400, 401, 404, 429]),
          // a key's scope refused in shape D (decisions.md), a user's role in shape A, the key's address in B
          403: AnyDoorForbiddenBody,
        },
      },
    },
    async (request, reply) => {
      const id = webhookId(request.params.id);
      // counted per webhook once it is the session's own (another account's guesses spend nothing of it)
      const admit = testLimit ? () => testLimit(request, reply, id) : undefined;
      return reply.code(202).send(await webhooks.sendTest(account(request), id, admit));
    },
  );

  app.post(
    '/api/webhook/:id/recover',
    {
      config: { ...A, errors: ['NOT_FOUND'] },
      schema: {
        tags: ['webhooks'],
        summary: 'Resend every FAILED or SKIPPED delivery created in a time window',
        params: IdParam,
        body: RecoverBody,
        response: {
          202: Recovered,
          ...errorAnswers(EnvelopeErrorBody, [400, 401, 404]),
          // a key's scope refused in shape D (decisions.md), a user's role in shape A, the key's address in B
          403: AnyDoorForbiddenBody,
        },
      },
    },
    async (request, reply) => {
      const since = instant(request.body.since, 'since');
      const until = request.body.until === undefined ? new Date() : instant(request.body.until, 'until');
      const recovered = await webhooks.recover(
        account(request),
        webhookId(request.params.id),
        since,
        until,
        actor(request),
      );
      return reply.code(202).send(recovered);
    },
  );

  app.get(
    '/api/webhook/:id/stats',
    {
      config: { ...A, errors: ['NOT_FOUND'] },
      schema: {
        tags: ['webhooks'],
        summary: 'Delivery health over the last hours',
        params: IdParam,
        querystring: StatsQuery,
        response: { 200: Stats, 400: EnvelopeErrorBody, 401: EnvelopeErrorBody, 404: EnvelopeErrorBody },
      },
    },
    async (request) => {
      const raw = request.query.hours;
      const hours = raw === undefined ? 24 : /^\d{1,3}$/.test(raw) ? Number(raw) : 0;
      if (hours < 1 || hours > 720) throw validation('hours must be a whole number from 1 to 720');
      return webhooks.stats(account(request), webhookId(request.params.id), hours);
    },
  );
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

function instant(raw: string, name: string): Date {
  const ms = Date.parse(raw);
  if (!ISO_INSTANT.test(raw) || Number.isNaN(ms) || !isRealCalendarTime(raw)) {
    throw validation(`${name} must be an ISO 8601 date-time that exists, e.g. 2026-11-22T10:00:00-03:00`);
  }
  return new Date(ms);
}
