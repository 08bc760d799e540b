import { merchantOf } from '../auth/index.js';
import { keyDoorErrors } from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { IdPath } from '../sales/index.js';
import { mapCheckoutErrors, uuidPath } from './http.js';
import { CheckoutSession, SessionBody } from './schemas.js';
import type { CheckoutSessions, SessionInput } from './sessions.js';

const security = [{ publicKey: [], privateKey: [] }];
const errors = {
  ...keyDoorErrors([404]),
};

/** Checkout sessions through the API (keys, error shape D). */
export function registerSessionRoutes(app: Http, sessions: CheckoutSessions, apiKey: AuthHook): void {
  app.post(
    '/api/checkout/sessions',
    {
      config: { errorShape: 'transaction', keyScope: 'charges', moves: 'charge' },
      onRequest: apiKey,
      schema: {
        tags: ['public'],
        security,
        summary:
          'Open a checkout session: a page at PUBLIC_URL/checkout/{id} where the payer pays this amount for these items',
        body: SessionBody,
        response: { 201: CheckoutSession, ...errors },
      },
    },
    async (request, reply) => {
      const input = request.body as SessionInput; // the schema validated it; methods are its literals
      const view = await mapCheckoutErrors(() => sessions.create(merchantOf(request).accountId, input));
      return reply.code(201).send(view);
    },
  );

  app.get(
    '/api/checkout/sessions/:id',
    {
      config: { errorShape: 'transaction', errors: ['NOT_FOUND'] },
      onRequest: apiKey,
      schema: {
        tags: ['public'],
        security,
        summary: 'One checkout session: open, paid (with its sale) or expired',
        params: IdPath,
        response: { 200: CheckoutSession, ...errors },
      },
    },
    async (request) => {
      const id = uuidPath(request.params.id, 'Checkout session');
      return mapCheckoutErrors(() => sessions.get(merchantOf(request).accountId, id));
    },
  );
}
