import { Type } from 'typebox';
import { Anticipation, type Anticipations, parseAsk } from '../anticipations/index.js';
import { merchantOf } from '../auth/index.js';
import { KEY_ROUTE_ERRORS, TransactionErrorBody } from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';

/** The finance operator's decision, played by the caller (`gateway trigger anticipation.paid|rejected`). */
export async function sandboxAnticipationRoutes(
  app: Http,
  deps: { apiKey: AuthHook; anticipations: Anticipations },
): Promise<void> {
  app.post(
    '/api/sandbox/anticipations',
    {
      config: { errorShape: 'transaction', errors: ['CONFLICT', 'INSUFFICIENT_BALANCE', 'NOT_FOUND'] },
      onRequest: deps.apiKey,
      schema: {
        summary:
          'Sandbox: an anticipation ({amountCents} or {upTo}) requested and decided at once as a finance operator would: outcome paid or rejected',
        tags: ['sandbox'],
        body: Type.Object({
          amountCents: Type.Optional(Type.Unknown()),
          upTo: Type.Optional(Type.Unknown()),
          outcome: Type.Union([Type.Literal('paid'), Type.Literal('rejected')]),
        }),
        response: {
          201: Anticipation,
          // shape D errors, as the anticipation routes (docs/decisions.md)
          ...KEY_ROUTE_ERRORS,
          409: TransactionErrorBody,
          422: TransactionErrorBody,
        },
      },
    },
    async (request, reply) => {
      const { outcome, ...ask } = request.body;
      const view = await deps.anticipations.sandboxDecided(
        merchantOf(request).accountId,
        parseAsk(ask),
        outcome,
      );
      return reply.code(201).send(view);
    },
  );
}
