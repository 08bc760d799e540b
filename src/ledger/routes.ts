import { Type } from 'typebox';
import { merchantOf } from '../auth/index.js';
import type { Db } from '../platform/db/db.js';
import { BalanceErrorBody, IpAccessErrorBody } from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { balanceReads } from './coalesced-balances.js';

export const Balance = Type.Object(
  { available: Type.Integer(), blocked: Type.Integer(), total: Type.Integer() },
  { examples: [{ available: 125000, blocked: 15000, total: 140000 }] },
);

export async function ledgerRoutes(app: Http, deps: { db: Db; apiKey: AuthHook }): Promise<void> {
  const balanceOf = balanceReads(deps.db);
  app.get(
    '/api/public/balance',
    {
      config: { errorShape: 'balance' },
      onRequest: deps.apiKey,
      schema: {
        summary: "The account's balance in cents: available, blocked and total",
        tags: ['public'],
        security: [{ publicKey: [], privateKey: [] }],
        response: { 200: Balance, 401: BalanceErrorBody, 403: IpAccessErrorBody, 500: BalanceErrorBody },
      },
    },
    async (request) => balanceOf(merchantOf(request).accountId),
  );
}
