import { Type } from 'typebox';
import { merchantOf } from '../auth/index.js';
import type { Db } from '../platform/db/db.js';
import {
  BalanceErrorBody,
  IpAccessErrorBody,
  KEY_ROUTE,
  keyDoorErrors,
} from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { balanceReads } from './coalesced-balances.js';
import { receivablesBetween, receivablesPeriod } from './receivables.js';
import { ReceivablesPage, ReceivablesQuery } from './schemas.js';

export const Balance = Type.Object(
  {
    available: Type.Integer(),
    blocked: Type.Integer(),
    total: Type.Integer({ description: 'available + blocked' }),
    receivable: Type.Integer({
      description: 'Card money still to settle: installments not yet available (not part of total)',
    }),
  },
  { examples: [{ available: 125000, blocked: 15000, total: 140000, receivable: 30000 }] },
);

export async function ledgerRoutes(app: Http, deps: { db: Db; apiKey: AuthHook }): Promise<void> {
  const balanceOf = balanceReads(deps.db);
  app.get(
    '/api/public/balance',
    {
      config: { errorShape: 'balance' },
      onRequest: deps.apiKey,
      schema: {
        summary: "The account's balance in cents: available, blocked, total and receivable",
        ...KEY_ROUTE,
        response: { 200: Balance, 401: BalanceErrorBody, 403: IpAccessErrorBody, 500: BalanceErrorBody },
      },
    },
    async (request) => balanceOf(merchantOf(request).accountId),
  );

  app.get(
    '/api/receivables',
    {
      config: { errorShape: 'transaction' },
      onRequest: deps.apiKey,
      schema: {
        summary: 'Card installments by the date they reach available (from today and 90 days on by default)',
        ...KEY_ROUTE,
        querystring: ReceivablesQuery,
        response: {
          200: ReceivablesPage,
          ...keyDoorErrors([500]),
        },
      },
    },
    async (request) => {
      const period = receivablesPeriod(request.query.from, request.query.to);
      const accountId = merchantOf(request).accountId;
      return { ...period, data: await receivablesBetween(deps.db, accountId, period.from, period.to) };
    },
  );
}
