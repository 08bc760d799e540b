import { Type } from 'typebox';
import { apiKeyActor } from '../audit/actor.js';
import { merchantOf } from '../auth/api-key.js';
import type { Db } from '../platform/db.js';
import { ShapeA, ShapeB, ShapeC, ShapeD } from '../platform/error-schemas.js';
import type { AuthHook, Http } from '../platform/http.js';
import { parsePublicId } from '../platform/ids.js';
import { keepRawJson } from '../platform/raw-body.js';
import type { CashoutCreator } from './batcher.js';
import { getCashout } from './cashouts.service.js';
import { parseCashoutRequest, parseIdempotencyKey } from './request.js';
import * as S from './schemas.js';
import { creationView, lookupView } from './views.js';

export interface CashoutRouteDeps {
  db: Db;
  creator: CashoutCreator;
  apiKey: AuthHook;
}

const security = [{ publicKey: [], privateKey: [] }];

export async function cashoutRoutes(app: Http, deps: CashoutRouteDeps): Promise<void> {
  keepRawJson(app);

  app.post(
    '/api/public/cashout',
    {
      config: { errorShape: 'D' },
      onRequest: deps.apiKey,
      schema: {
        tags: ['public'],
        security,
        headers: S.IdempotencyHeaders,
        body: S.CashoutBody,
        response: {
          201: S.WithdrawalCreated,
          400: ShapeD,
          401: ShapeD,
          403: Type.Union([ShapeC, ShapeB, ShapeA]),
          409: ShapeC,
          422: ShapeC,
          500: ShapeD,
        },
      },
    },
    async (request, reply) => {
      const merchant = merchantOf(request);
      const key = parseIdempotencyKey(request.headers['idempotency-key']);
      const req = parseCashoutRequest(request.body, request.rawBody?.toString('utf8'));
      const actor = apiKeyActor(request, merchant);
      const { withdrawal, replayed } = await deps.creator.create(merchant.accountId, req, key, actor);
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(201).send(creationView(withdrawal));
    },
  );

  app.get(
    '/api/public/cashout/:id',
    {
      config: { errorShape: 'D' },
      onRequest: deps.apiKey,
      schema: {
        tags: ['public'],
        security,
        params: S.IdParam,
        response: { 200: S.WithdrawalLookup, 401: ShapeD, 403: ShapeB, 404: ShapeD, 500: ShapeD },
      },
    },
    async (request) => {
      const row = await getCashout(deps.db, merchantOf(request).accountId, parsePublicId(request.params.id));
      return lookupView(row);
    },
  );
}
