import { Type } from 'typebox';
import type { Db } from '../../platform/db/db.js';
import { notFound } from '../../platform/errors/app-error.js';
import { EnvelopeErrorBody } from '../../platform/http/error-schemas.js';
import { keepRawJson } from '../../platform/http/json-body.js';
import type { Http } from '../../platform/http/types.js';
import { handlePayoutCallback } from './payouts.js';
import type { PayoutProviders } from './providers.js';

const Ack = Type.Object({ received: Type.Boolean(), status: Type.String(), changed: Type.Boolean() });

/** Provider callbacks, authenticated by each provider's signature over the raw body (not by API keys). */
export async function payoutCallbackRoutes(
  app: Http,
  deps: { db: Db; providers: PayoutProviders },
): Promise<void> {
  keepRawJson(app);
  app.post(
    '/api/providers/:provider/payouts/callback',
    {
      config: { errorShape: 'envelope', errors: ['CONFLICT', 'NOT_FOUND', 'UNAUTHORIZED'] },
      schema: {
        summary: "A payout provider reports a withdrawal's result (signed)",
        tags: ['providers'],
        params: Type.Object({ provider: Type.String() }),
        response: { 200: Ack, 400: EnvelopeErrorBody, 401: EnvelopeErrorBody, 404: EnvelopeErrorBody },
      },
    },
    async (request) => {
      const provider = deps.providers.byName(request.params.provider);
      if (!provider) throw notFound(`Unknown payout provider ${request.params.provider}`);
      const outcome = await handlePayoutCallback(
        deps.db,
        provider,
        request.rawBody ?? Buffer.alloc(0),
        request.headers,
      );
      return { received: true, status: outcome.withdrawal.status, changed: outcome.changed };
    },
  );
}
