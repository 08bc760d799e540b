import { Type } from 'typebox';
import { merchantOf } from '../auth/index.js';
import { KEY_ROUTE_ERRORS, TransactionErrorBody } from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { Subscription, type SubscriptionBiller } from '../subscriptions/index.js';

// shape D errors, as the subscription routes (docs/decisions.md)
const errors = { ...KEY_ROUTE_ERRORS, 409: TransactionErrorBody };

export async function sandboxSubscriptionRoutes(
  app: Http,
  deps: { apiKey: AuthHook; biller: SubscriptionBiller },
): Promise<void> {
  app.post(
    '/api/sandbox/subscriptions/:id/advance',
    {
      config: {
        errorShape: 'transaction',
        keyScope: 'charges',
        // a suspended account's renewals wait: the sandbox makes none either
        moves: 'charge',
        errors: ['NOT_FOUND', 'CONFLICT', 'INVALID_STATUS'],
      },
      onRequest: deps.apiKey,
      schema: {
        summary:
          "Sandbox: the subscription's next charge made now (a retry when it is past due), through the scheduler's own code",
        tags: ['sandbox'],
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        response: { 200: Subscription, ...errors },
      },
    },
    async (request) => deps.biller.advance(merchantOf(request).accountId, request.params.id),
  );
}
