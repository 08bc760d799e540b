import { apiKeyOrSession, requestAccount } from '../auth/index.js';
import type { Db } from '../platform/db/db.js';
import { EITHER_DOOR_ROUTE, EitherDoorErrorBody, eitherDoorErrors } from '../platform/http/error-schemas.js';
import { IdempotencyHeaders, parseIdempotencyKey } from '../platform/http/idempotency-key.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { decodeCursor, pageOf, parseLimit } from '../platform/paging/pagination.js';
import type { Anticipations } from './anticipations.js';
import { listAnticipations } from './data.js';
import { parseAsk } from './quote.js';
import { Anticipation, AnticipationPage, AskBody, PageQuery, Simulation } from './schemas.js';

const errors = eitherDoorErrors([400, 401, 500]);

/** The merchant's anticipation routes: API keys (errors in shape D) or the panel session (shape A). */
export async function anticipationRoutes(
  app: Http,
  deps: { db: Db; anticipations: Anticipations; apiKey: AuthHook; requireSession: AuthHook },
): Promise<void> {
  const door = apiKeyOrSession(deps.apiKey, deps.requireSession);

  app.post(
    '/api/anticipations/simulate',
    {
      // a simulation changes nothing: any role that sees money may run it in the panel; a read key opens GET
      // routes only (decisions.md, keys bounded by their creator), so by key it takes what a request does
      config: {
        errorShape: 'transaction',
        permission: 'money.view',
        errors: ['FORBIDDEN', 'NOT_FOUND', 'INSUFFICIENT_BALANCE'],
      },
      onRequest: door,
      schema: {
        ...EITHER_DOOR_ROUTE,
        summary:
          'What anticipating card receivables would pay now: {amountCents} (the earliest installments first) or {upTo: "YYYY-MM-DD"}',
        body: AskBody,
        response: { 200: Simulation, ...errors, 422: EitherDoorErrorBody },
      },
    },
    async (request) => {
      const quote = await deps.anticipations.simulate(requestAccount(request), parseAsk(request.body));
      return {
        grossCents: quote.grossCents,
        feeCents: quote.feeCents,
        netCents: quote.netCents,
        receivables: quote.receivables,
      };
    },
  );

  app.post(
    '/api/anticipations',
    {
      config: {
        errorShape: 'transaction',
        permission: 'withdrawals.create',
        moves: 'anticipation',
        errors: ['FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'INSUFFICIENT_BALANCE', 'IDEMPOTENCY_KEY_REUSED'],
      },
      onRequest: door,
      schema: {
        ...EITHER_DOOR_ROUTE,
        summary:
          'Anticipate card receivables (Idempotency-Key honoured): paid at once with ANTICIPATION_AUTO_APPROVE=on, else requested for a finance operator',
        headers: IdempotencyHeaders,
        body: AskBody,
        response: { 201: Anticipation, ...errors, 409: EitherDoorErrorBody, 422: EitherDoorErrorBody },
      },
    },
    async (request, reply) => {
      const key = parseIdempotencyKey(request.headers['idempotency-key']);
      const ask = parseAsk(request.body);
      const { view, replayed } = await deps.anticipations.request(requestAccount(request), ask, key);
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(201).send(view);
    },
  );

  app.get(
    '/api/anticipations',
    {
      config: { errorShape: 'transaction', permission: 'money.view', errors: ['FORBIDDEN'] },
      onRequest: door,
      schema: {
        ...EITHER_DOOR_ROUTE,
        summary: "The account's anticipations, newest first",
        querystring: PageQuery,
        response: { 200: AnticipationPage, ...errors },
      },
    },
    async (request) => {
      const limit = parseLimit(request.query.limit);
      const before = request.query.cursor === undefined ? null : decodeCursor(request.query.cursor);
      const rows = await listAnticipations(deps.db, {
        accountId: requestAccount(request),
        status: null,
        before,
        limit: limit + 1,
      });
      const page = pageOf(
        rows.map((r) => ({ ...r, id: Number(r.id) })),
        limit,
      );
      return { data: await deps.anticipations.viewsOf(deps.db, page.rows), nextCursor: page.nextCursor };
    },
  );
}
