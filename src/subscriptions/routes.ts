import type { FastifyRequest } from 'fastify';
import { apiKeyOrSession, requestAccount, requestMay } from '../auth/index.js';
import {
  SHAPE_D as D,
  EITHER_DOOR_ERRORS as doorErrors,
  EITHER_DOOR_ROUTE as doors,
  KEY_ROUTE_ERRORS as errors,
  KEY_ROUTE as schema,
  TransactionErrorBody,
} from '../platform/http/error-schemas.js';
import { emptyBodyIsObject } from '../platform/http/json-body.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { decodeCursor, parseLimit } from '../platform/paging/pagination.js';
import {
  CancelBody,
  IdPath,
  PageQuery,
  Plan,
  PlanBody,
  PlanPatch,
  PlansPage,
  Subscription,
  SubscriptionBody,
  SubscriptionPatch,
  SubscriptionsPage,
  SubscriptionsQuery,
} from './schemas.js';
import type { Subscriptions, SubscriptionView } from './subscriptions.js';

/**
 * Plans and subscriptions (API keys, shape D): each period one sale carrying subscriptionId. Creating a plan,
 * changing one and subscribing a customer open by either door: the API key, or the panel session (shape A, the
 * permission to issue charges), one handler for the integrator and the panel's Assinaturas.
 */
export async function subscriptionRoutes(
  app: Http,
  deps: { subscriptions: Subscriptions; apiKey: AuthHook; requireSession: AuthHook },
): Promise<void> {
  const subs = deps.subscriptions;
  const door = apiKeyOrSession(deps.apiKey, deps.requireSession);

  app.post(
    '/api/plans',
    {
      config: { ...D, keyScope: 'charges', moves: 'charge', permission: 'sales.create' },
      onRequest: door,
      schema: {
        ...doors,
        summary: 'Create a plan: an amount billed every week, month or year, with an optional trial',
        body: PlanBody,
        response: { 201: Plan, ...doorErrors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await subs.createPlan(requestAccount(request), request.body)),
  );

  app.get(
    '/api/plans',
    {
      config: { ...D, permission: 'money.view' },
      onRequest: door,
      schema: {
        ...doors,
        summary: "The account's plans, newest first (cursor pages; limit 1..100, default 20)",
        querystring: PageQuery,
        response: { 200: PlansPage, ...doorErrors },
      },
    },
    async (request) =>
      subs.plans(
        requestAccount(request),
        request.query.cursor ? decodeCursor(request.query.cursor) : null,
        parseLimit(request.query.limit),
      ),
  );

  app.get(
    '/api/plans/:id',
    {
      config: { ...D, errors: ['NOT_FOUND'] },
      onRequest: deps.apiKey,
      schema: { ...schema, summary: 'One plan', params: IdPath, response: { 200: Plan, ...errors } },
    },
    async (request) => subs.plan(requestAccount(request), request.params.id),
  );

  app.patch(
    '/api/plans/:id',
    {
      config: { ...D, keyScope: 'charges', errors: ['NOT_FOUND'], permission: 'sales.create' },
      onRequest: door,
      schema: {
        ...doors,
        summary: 'Rename or (de)activate a plan; its amount never changes (make a new plan)',
        params: IdPath,
        body: PlanPatch,
        response: { 200: Plan, ...doorErrors },
      },
    },
    async (request) => subs.updatePlan(requestAccount(request), request.params.id, request.body),
  );

  app.post(
    '/api/subscriptions',
    {
      config: { ...D, keyScope: 'charges', moves: 'charge', permission: 'sales.create' },
      onRequest: door,
      schema: {
        ...doors,
        summary:
          'Subscribe a customer to a plan: by a saved card (or, without cardId, the card the customer gives on the billing page e-mailed to them), PIX (a charge e-mailed each period) or BOLETO (issued ahead and e-mailed)',
        body: SubscriptionBody,
        response: { 201: Subscription, ...doorErrors },
      },
    },
    async (request, reply) => reply.code(201).send(await subs.create(requestAccount(request), request.body)),
  );

  app.get(
    '/api/subscriptions',
    {
      config: { ...D, permission: 'money.view' },
      onRequest: door,
      schema: {
        ...doors,
        summary: "The account's subscriptions, newest first (cursor pages; by customerId or status)",
        querystring: SubscriptionsQuery,
        response: { 200: SubscriptionsPage, ...doorErrors },
      },
    },
    async (request) => {
      const page = await subs.list(requestAccount(request), {
        before: request.query.cursor ? decodeCursor(request.query.cursor) : null,
        limit: parseLimit(request.query.limit),
        customerId: request.query.customerId,
        status: request.query.status,
      });
      return { ...page, data: page.data.map((s) => forCaller(request, s)) };
    },
  );

  app.get(
    '/api/subscriptions/:id',
    {
      config: { ...D, errors: ['NOT_FOUND'], permission: 'money.view' },
      // the panel's subscription page reads it by the same route
      onRequest: door,
      schema: {
        ...doors,
        summary: 'One subscription; another account’s is not found',
        params: IdPath,
        response: { 200: Subscription, ...doorErrors },
      },
    },
    async (request) => forCaller(request, await subs.one(requestAccount(request), request.params.id)),
  );

  app.patch(
    '/api/subscriptions/:id',
    {
      config: { ...D, keyScope: 'charges', errors: ['NOT_FOUND', 'INVALID_STATUS'] },
      onRequest: deps.apiKey,
      schema: {
        ...schema,
        summary:
          'Change the plan (from the next period on) or the saved card (a subscription behind is tried again now)',
        params: IdPath,
        body: SubscriptionPatch,
        response: { 200: Subscription, 409: TransactionErrorBody, ...errors },
      },
    },
    async (request) => subs.update(requestAccount(request), request.params.id, request.body),
  );

  app.post(
    '/api/subscriptions/:id/cancel',
    {
      config: { ...D, keyScope: 'charges', permission: 'sales.create', errors: ['NOT_FOUND'] },
      onRequest: door,
      // no body: cancel now
      preValidation: emptyBodyIsObject,
      schema: {
        ...doors,
        summary: 'Cancel now, or at the current period’s end (atPeriodEnd)',
        params: IdPath,
        body: CancelBody,
        response: { 200: Subscription, ...doorErrors },
      },
    },
    async (request) =>
      subs.cancel(requestAccount(request), request.params.id, request.body.atPeriodEnd ?? false),
  );
}

/**
 * A subscription as this caller may see it: its customer's page link (which changes the card and cancels, as the
 * customer) only for one who may change subscriptions, never a read key or a viewer.
 */
function forCaller(request: FastifyRequest, sub: SubscriptionView): SubscriptionView {
  return requestMay(request, 'sales.create', 'charges') ? sub : { ...sub, billingUrl: null };
}
