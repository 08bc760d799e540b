import { Type } from 'typebox';
import { merchantOf } from '../auth/api-key.js';
import type { Db } from '../platform/db.js';
import type { AuthHook, Http } from '../platform/http.js';
import { getBalance } from './ledger.js';

const Balance = Type.Object({ available: Type.Integer(), blocked: Type.Integer(), total: Type.Integer() });
const ShapeE = Type.Object({ error: Type.String(), message: Type.String() });
const ShapeB = Type.Object({ message: Type.String(), code: Type.String() });

export async function ledgerRoutes(app: Http, deps: { db: Db; apiKey: AuthHook }): Promise<void> {
  app.get(
    '/api/public/balance',
    {
      config: { errorShape: 'E' },
      onRequest: deps.apiKey,
      schema: {
        tags: ['public'],
        security: [{ publicKey: [], privateKey: [] }],
        response: { 200: Balance, 401: ShapeE, 403: ShapeB, 500: ShapeE },
      },
    },
    async (request) => getBalance(deps.db, merchantOf(request).accountId),
  );
}
