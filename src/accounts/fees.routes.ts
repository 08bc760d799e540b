import { apiKeyOrSession, requestAccount } from '../auth/index.js';
import type { Db } from '../platform/db/db.js';
import { notFound } from '../platform/errors/app-error.js';
import { EITHER_DOOR_ROUTE, eitherDoorErrors } from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { merchantFees } from './fee-plans.js';
import { MerchantFees } from './schemas.js';

/** GET /api/fees: the merchant reads its own fees, by API key or from the panel. */
export async function feeRoutes(app: Http, deps: { db: Db; apiKey: AuthHook; requireSession: AuthHook }) {
  app.get(
    '/api/fees',
    {
      config: { errorShape: 'transaction', permission: 'money.view', errors: ['FORBIDDEN', 'NOT_FOUND'] },
      onRequest: apiKeyOrSession(deps.apiKey, deps.requireSession),
      schema: {
        summary: "The account's fees: its fee plan, or its own rates in the plan's shape",
        description:
          'API keys (errors in shape D) or the panel session (shape A). A sale keeps the fee it was created with.',
        ...EITHER_DOOR_ROUTE,
        response: { 200: MerchantFees, ...eitherDoorErrors([401, 404, 500]) },
      },
    },
    async (request) => {
      const fees = await merchantFees(deps.db, requestAccount(request));
      if (!fees) throw notFound('Account not found');
      return fees;
    },
  );
}
