import { Type } from 'typebox';
import { merchantOf } from '../auth/api-key.js';
import { getCashout } from '../cashouts/cashouts.service.js';
import { WithdrawalLookup } from '../cashouts/schemas.js';
import { lookupView } from '../cashouts/views.js';
import { handlePayoutCallback } from '../payouts/payouts.service.js';
import type { PayoutProviders } from '../payouts/providers.js';
import type { Db } from '../platform/db.js';
import { ShapeA, ShapeB } from '../platform/error-schemas.js';
import { conflict } from '../platform/errors.js';
import type { AuthHook, Http } from '../platform/http.js';
import { parsePublicId } from '../platform/ids.js';

/**
 * The sandbox payout provider's result: it signs a callback exactly as the provider would and hands it to
 * the same handler as POST /api/providers/sandbox/payouts/callback.
 */
export async function sandboxCashoutRoutes(
  app: Http,
  deps: { db: Db; apiKey: AuthHook; providers: PayoutProviders },
): Promise<void> {
  app.post(
    '/api/sandbox/cashouts/:id/result',
    {
      config: { errorShape: 'A' },
      onRequest: deps.apiKey,
      schema: {
        tags: ['sandbox'],
        security: [{ publicKey: [], privateKey: [] }],
        params: Type.Object({ id: Type.String({ description: 'Withdrawal uuid or numeric id' }) }),
        body: Type.Object({ result: Type.Union([Type.Literal('COMPLETED'), Type.Literal('REJECTED')]) }),
        response: {
          200: WithdrawalLookup,
          400: ShapeA,
          401: ShapeA,
          403: Type.Union([ShapeB, ShapeA]),
          404: ShapeA,
          409: ShapeA,
        },
      },
    },
    async (request) => {
      const row = await getCashout(deps.db, merchantOf(request).accountId, parsePublicId(request.params.id));
      if (row.status !== 'PROCESSING' || row.provider !== deps.providers.sandbox.name) {
        throw conflict(`Withdrawal is ${row.status}; a result applies only to a PROCESSING withdrawal`);
      }
      const callback = await deps.providers.sandbox.signedCallback(row.uuid, request.body.result);
      const outcome = await handlePayoutCallback(
        deps.db,
        deps.providers.sandbox,
        Buffer.from(callback.body, 'utf8'),
        callback.headers,
      );
      if (!outcome.changed) {
        throw conflict(
          `Withdrawal is ${outcome.withdrawal.status}; a result applies only to a PROCESSING withdrawal`,
        );
      }
      return lookupView(outcome.withdrawal);
    },
  );
}
