import { Type } from 'typebox';
import { apiKeyOrSession, requestAccount } from '../auth/index.js';
import {
  SHAPE_D as D,
  EITHER_DOOR_ERRORS as doorErrors,
  EITHER_DOOR_ROUTE as doors,
  KEY_ROUTE_ERRORS as errors,
  KEY_ROUTE as schema,
} from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { decodeCursor, parseLimit } from '../platform/paging/pagination.js';
import type { Customers } from './customers.js';
import {
  CardPath,
  Customer,
  CustomerBody,
  CustomerPath,
  CustomersPage,
  PageQuery,
  SaveCardBody,
  SavedCard,
} from './schemas.js';

/**
 * Customers and their saved cards (API keys, shape D): a card on file is charged by card: {cardId}. Creating a
 * customer opens by the panel session too (shape A; Assinaturas' new customer), one handler for both.
 */
export async function customerRoutes(
  app: Http,
  deps: { customers: Customers; apiKey: AuthHook; requireSession: AuthHook },
): Promise<void> {
  const door = apiKeyOrSession(deps.apiKey, deps.requireSession);

  app.post(
    '/api/customers',
    {
      config: { ...D, keyScope: 'charges', permission: 'sales.create' },
      onRequest: door,
      schema: {
        ...doors,
        summary: 'Create a customer (name, e-mail, CPF or CNPJ checked, phone)',
        body: CustomerBody,
        response: { 201: Customer, ...doorErrors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await deps.customers.create(requestAccount(request), request.body)),
  );

  app.get(
    '/api/customers',
    {
      config: D,
      onRequest: deps.apiKey,
      schema: {
        ...schema,
        summary: "The account's customers, newest first (cursor pages; limit 1..100, default 20)",
        querystring: PageQuery,
        response: { 200: CustomersPage, ...errors },
      },
    },
    async (request) =>
      deps.customers.list(
        requestAccount(request),
        request.query.cursor ? decodeCursor(request.query.cursor) : null,
        parseLimit(request.query.limit),
      ),
  );

  app.get(
    '/api/customers/:id',
    {
      config: { ...D, errors: ['NOT_FOUND'], permission: 'money.view' },
      // the panel's subscription page reads its customer by the same route
      onRequest: door,
      schema: {
        ...doors,
        summary: 'One customer with its saved cards; another account’s is not found',
        params: CustomerPath,
        response: { 200: Customer, ...doorErrors },
      },
    },
    async (request) => deps.customers.one(requestAccount(request), request.params.id),
  );

  app.post(
    '/api/customers/:id/cards',
    {
      config: { ...D, keyScope: 'charges', moves: 'charge', errors: ['NOT_FOUND'] },
      onRequest: deps.apiKey,
      schema: {
        ...schema,
        summary:
          'Save a card on file for the customer from a one-time card token (the acquirer keeps the card; the gateway its reusable token, brand, last four, expiry)',
        params: CustomerPath,
        body: SaveCardBody,
        response: { 201: SavedCard, ...errors },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await deps.customers.saveCard(requestAccount(request), request.params.id, request.body.token)),
  );

  app.delete(
    '/api/customers/:id/cards/:cardId',
    {
      config: { ...D, keyScope: 'charges', errors: ['NOT_FOUND'] },
      onRequest: deps.apiKey,
      schema: {
        ...schema,
        summary: 'Delete a saved card: it charges nothing any more',
        params: CardPath,
        response: { 204: Type.Null(), ...errors },
      },
    },
    async (request, reply) => {
      await deps.customers.deleteCard(requestAccount(request), request.params.id, request.params.cardId);
      return reply.code(204).send(null);
    },
  );
}
