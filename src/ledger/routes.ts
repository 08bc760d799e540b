import { Type } from 'typebox';
import { merchantOf } from '../auth/api-key.js';
import type { Db } from '../platform/db.js';
import { ShapeB, ShapeE } from '../platform/error-schemas.js';
import type { AuthHook, Http } from '../platform/http.js';
import { balanceReads } from './balance-reads.js';

const Balance = Type.Object({ available: Type.Integer(), blocked: Type.Integer(), total: Type.Integer() });

export async function ledgerRoutes(app: Http, deps: { db: Db; apiKey: AuthHook }): Promise<void> {
  const balanceOf = balanceReads(deps.db);
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
    async (request) => balanceOf(merchantOf(request).accountId),
  );
}
