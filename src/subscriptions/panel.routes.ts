import { Type } from 'typebox';
import { accountOf } from '../auth/index.js';
import { EnvelopeErrorBody, errorAnswers } from '../platform/http/error-schemas.js';
import { emptyBodyIsObject } from '../platform/http/json-body.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { decodeCursor, parseLimit } from '../platform/paging/pagination.js';
import {
  CancelBody,
  IdPath,
  PlansPage,
  Subscription,
  SubscriptionsPage,
  SubscriptionsQuery,
} from './schemas.js';
import type { Subscriptions } from './subscriptions.js';

const errors = {
  ...errorAnswers(EnvelopeErrorBody, [400, 401, 403, 404]),
};

/** The panel's Assinaturas page (session cookie): the subscriptions and plans, and cancelling one. */
export async function subscriptionPanelRoutes(
  app: Http,
  deps: { subscriptions: Subscriptions; requireSession: AuthHook },
): Promise<void> {
  const subs = deps.subscriptions;
  const read = { errorShape: 'envelope' as const, permission: 'money.view' as const };

  app.get(
    '/api/panel/subscriptions',
    {
      config: read,
      onRequest: deps.requireSession,
      schema: {
        tags: ['panel'],
        summary: "The account's subscriptions, newest first (by status or customer)",
        querystring: SubscriptionsQuery,
        response: { 200: SubscriptionsPage, ...errors },
      },
    },
    async (request) =>
      subs.list(accountOf(request), {
        before: request.query.cursor ? decodeCursor(request.query.cursor) : null,
        limit: parseLimit(request.query.limit),
        customerId: request.query.customerId,
        status: request.query.status,
      }),
  );

  app.get(
    '/api/panel/plans',
    {
      config: read,
      onRequest: deps.requireSession,
      schema: {
        tags: ['panel'],
        summary: "The account's plans, newest first",
        querystring: Type.Object({
          cursor: Type.Optional(Type.String({ maxLength: 64 })),
          limit: Type.Optional(Type.String({ maxLength: 3 })),
        }),
        response: { 200: PlansPage, ...errors },
      },
    },
    async (request) =>
      subs.plans(
        accountOf(request),
        request.query.cursor ? decodeCursor(request.query.cursor) : null,
        parseLimit(request.query.limit),
      ),
  );

  app.post(
    '/api/panel/subscriptions/:id/cancel',
    {
      config: { errorShape: 'envelope' as const, permission: 'sales.create' as const, errors: ['NOT_FOUND'] },
      onRequest: deps.requireSession,
      // no body: cancel now
      preValidation: emptyBodyIsObject,
      schema: {
        tags: ['panel'],
        summary: 'Cancel a subscription now, or at its period’s end',
        params: IdPath,
        body: CancelBody,
        response: { 200: Subscription, ...errors },
      },
    },
    async (request) => subs.cancel(accountOf(request), request.params.id, request.body.atPeriodEnd ?? false),
  );
}
