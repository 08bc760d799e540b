import type { FastifyReply, FastifyRequest } from 'fastify';
import { accountOf, merchantOf } from '../auth/index.js';
import { EnvelopeErrorBody, errorAnswers, KEY_ROUTE, keyDoorErrors } from '../platform/http/error-schemas.js';
import { emptyBodyIsObject } from '../platform/http/json-body.js';
import { sendJsonText } from '../platform/http/json-reply.js';
import type { AuthHook, CardAttemptCheck, Http } from '../platform/http/types.js';
import { saleIdParam } from '../platform/ids/public-ids.js';
import { IdPath, Sale, saleJson } from '../sales/index.js';
import type { CardSales } from './card-sales.js';
import { mapCardErrors } from './http.js';
import { CaptureBody, CardToken, CardTokenBody } from './schemas.js';
import type { CardTokens } from './tokens.js';

const TOKENS = '/api/cards/tokens';

/** Browsers post cards from any merchant's page: every answer of the route, errors included, is readable there. */
async function openToAnyOrigin(_request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header('access-control-allow-origin', '*');
}

export async function cardRoutes(
  app: Http,
  deps: {
    tokens: CardTokens;
    publicKey: AuthHook;
    apiKey: AuthHook;
    requireSession: AuthHook;
    sales: CardSales;
    /** The card-testing limits (null: off). */
    cardAttempt: CardAttemptCheck | null;
  },
): Promise<void> {
  const counted = async (request: FastifyRequest, reply: FastifyReply, number: string) => {
    if (deps.cardAttempt) await deps.cardAttempt(request, reply, number);
  };
  app.post(
    '/api/transactions/:id/capture',
    {
      config: {
        errorShape: 'transaction',
        keyScope: 'charges',
        moves: 'charge',
        errors: ['CONFLICT', 'FORBIDDEN', 'NOT_FOUND', 'PROCESSOR_ERROR', 'PROCESSOR_UNAVAILABLE'],
      },
      onRequest: deps.apiKey,
      preValidation: emptyBodyIsObject,
      schema: {
        summary:
          'Capture an authorized card sale (EM_PROCESSAMENTO → PAGO), all of it or less, within 7 days',
        ...KEY_ROUTE,
        params: IdPath,
        body: CaptureBody,
        response: {
          200: Sale,
          ...keyDoorErrors([404, 409, 500, 502, 503]),
        },
      },
    },
    async (request, reply) => {
      const id = saleIdParam(request.params.id);
      const saleId = await mapCardErrors(() =>
        deps.sales.capture(merchantOf(request).accountId, id, request.body.amountCents),
      );
      return sendJsonText(reply, 200, await saleJson(deps.sales.db, saleId));
    },
  );

  // the CORS preflight: no key (browsers send none on it), nothing read; not an API operation
  app.options(TOKENS, { schema: { hide: true } }, async (_request, reply) => {
    return reply
      .code(204)
      .headers({
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'POST, OPTIONS',
        'access-control-allow-headers': 'content-type, x-api-public-key, x-request-id',
        'access-control-max-age': '600',
      })
      .send();
  });

  app.post(
    TOKENS,
    {
      config: {
        errorShape: 'transaction',
        keyScope: 'charges',
        // an account that may not charge (waiting for review, suspended) sends no card to the acquirer
        moves: 'card-token',
        errors: ['PROCESSOR_ERROR', 'PROCESSOR_UNAVAILABLE', 'CARD_PAYMENTS_PAUSED'],
      },
      onRequest: [openToAnyOrigin, deps.publicKey],
      schema: {
        summary: "Tokenizes a card at the acquirer (the public key alone: for the payer's browser)",
        description:
          'The card number and CVV go to the acquirer and are never stored or logged; the token is used once, ' +
          'within 15 minutes. CORS is open to any origin.',
        tags: ['public'],
        security: [{ publicKey: [] }],
        body: CardTokenBody,
        response: {
          201: CardToken,
          ...keyDoorErrors([502, 503]),
        },
      },
    },
    async (request, reply) => {
      await counted(request, reply, request.body.number);
      const issued = await mapCardErrors(() =>
        deps.tokens.issue(merchantOf(request).accountId, request.body, { ip: request.ip }),
      );
      return reply.code(201).send(issued);
    },
  );

  // "Nova cobrança" by card: the panel keys in the payer's card (no key pair in the browser), same-origin only
  app.post(
    '/api/panel/cards/tokens',
    {
      config: {
        errorShape: 'envelope',
        permission: 'sales.create',
        // as the key's door: an account that may not charge sends no card to the acquirer, nor spends its attempts
        moves: 'card-token',
        errors: ['PROCESSOR_ERROR', 'PROCESSOR_UNAVAILABLE', 'CARD_PAYMENTS_PAUSED'],
      },
      onRequest: deps.requireSession,
      schema: {
        summary:
          "Tokenizes a card at the acquirer for the panel's card charge (POST /api/cards/tokens's body)",
        description: 'The card number and CVV go to the acquirer and are never stored or logged.',
        tags: ['panel'],
        body: CardTokenBody,
        response: {
          201: CardToken,
          ...errorAnswers(EnvelopeErrorBody, [400, 401, 403, 502, 503]),
        },
      },
    },
    async (request, reply) => {
      await counted(request, reply, request.body.number);
      const issued = await mapCardErrors(() =>
        deps.tokens.issue(accountOf(request), request.body, { ip: request.ip }),
      );
      return reply.code(201).send(issued);
    },
  );
}
