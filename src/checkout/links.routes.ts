import type { FastifyRequest } from 'fastify';
import { accountOf, merchantOf } from '../auth/index.js';
import { AnyDoorForbiddenBody, doorDeclaration } from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { encodeCursor, parsePage } from '../platform/paging/pagination.js';
import { IdPath } from '../sales/index.js';
import { mapCheckoutErrors, uuidPath } from './http.js';
import type { LinkInput, PaymentLinks } from './links.js';
import { LinkBody, LinkListQuery, LinkPatch, PaymentLink, PaymentLinkPage } from './schemas.js';

/**
 * The four payment-link routes, under `path`, for the API (keys, error shape D) or the panel (session, shape A,
 * reading with money.view and changing with withdrawals.create, which issues charges).
 */
export function registerLinkRoutes(
  app: Http,
  links: PaymentLinks,
  side: { kind: 'api' | 'panel'; path: string; auth: AuthHook },
): void {
  const api = side.kind === 'api';
  const { errorShape, errors, common } = doorDeclaration(side.kind, AnyDoorForbiddenBody);
  const accountIdOf = (request: FastifyRequest) => (api ? merchantOf(request).accountId : accountOf(request));
  const permission = (p: 'money.view' | 'sales.create') => (api ? {} : { permission: p });

  app.post(
    side.path,
    {
      config: {
        errorShape,
        keyScope: 'charges' as const,
        moves: 'charge' as const,
        ...permission('sales.create'),
      },
      onRequest: side.auth,
      schema: {
        ...common,
        summary:
          'Create a payment link: a page at PUBLIC_URL/pay/{slug} where payers pay a fixed or open amount',
        body: LinkBody,
        response: { 201: PaymentLink, ...errors },
      },
    },
    async (request, reply) => {
      const input = request.body as LinkInput; // the schema validated it; methods are its literals
      const view = await mapCheckoutErrors(() => links.create(accountIdOf(request), input));
      return reply.code(201).send(view);
    },
  );

  app.get(
    side.path,
    {
      config: { errorShape, ...permission('money.view') },
      onRequest: side.auth,
      schema: {
        ...common,
        summary: 'The payment links, newest first, with their uses',
        querystring: LinkListQuery,
        response: { 200: PaymentLinkPage, ...errors },
      },
    },
    async (request) => {
      const page = parsePage(request.query);
      const { links: data, lastSeq, more } = await links.list(accountIdOf(request), page.limit, page.before);
      return { data, nextCursor: more && lastSeq !== null ? encodeCursor(lastSeq) : null };
    },
  );

  app.get(
    `${side.path}/:id`,
    {
      config: { errorShape, errors: ['NOT_FOUND'], ...permission('money.view') },
      onRequest: side.auth,
      schema: {
        ...common,
        summary: 'One payment link, with its uses',
        params: IdPath,
        response: { 200: PaymentLink, ...errors },
      },
    },
    async (request) => {
      const id = uuidPath(request.params.id, 'Payment link');
      return mapCheckoutErrors(() => links.get(accountIdOf(request), id));
    },
  );

  app.patch(
    `${side.path}/:id`,
    {
      config: {
        errorShape,
        errors: ['NOT_FOUND'],
        keyScope: 'charges' as const,
        ...permission('sales.create'),
      },
      onRequest: side.auth,
      schema: {
        ...common,
        summary: 'Turn a payment link off (its page answers 410) or on again',
        params: IdPath,
        body: LinkPatch,
        response: { 200: PaymentLink, ...errors },
      },
    },
    async (request) => {
      const id = uuidPath(request.params.id, 'Payment link');
      return mapCheckoutErrors(() => links.setActive(accountIdOf(request), id, request.body.active));
    },
  );
}
