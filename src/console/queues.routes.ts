import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { Dispute, opsDisputes } from '../disputes/index.js';
import { operatorActor } from '../operators/index.js';
import { validation } from '../platform/errors/app-error.js';
import { EnvelopeErrorBody, errorAnswers } from '../platform/http/error-schemas.js';
import { emptyBodyIsObject } from '../platform/http/json-body.js';
import type { Http } from '../platform/http/types.js';
import { oneOf } from '../platform/literals/one-of.js';
import { decodeCursor, encodeCursor, parseLimit } from '../platform/paging/pagination.js';
import { findReview, openReviews, reviewView } from '../reviews/index.js';
import { accountOfWithdrawal, OPS_WITHDRAWAL_QUEUES, opsWithdrawals } from '../withdrawals/index.js';
import type { ConsoleRouteDeps } from './accounts.routes.js';
import {
  DisputesQuery,
  OpsWithdrawal,
  ReasonBody,
  ReviewsPage,
  ReviewsQuery,
  ReviewView,
  WithdrawalIdParam,
  WithdrawalsPage,
  WithdrawalsQuery,
} from './schemas.js';
import { opsWithdrawalView, withAccountNames } from './views.js';

const A = { errorShape: 'envelope' as const };
const OpsDisputes = Type.Object({
  data: Type.Array(
    Type.Object({
      ...Dispute.properties,
      accountId: Type.Integer(),
      accountName: Type.Optional(Type.String({ description: "The account's name (in the console's lists)" })),
    }),
  ),
});
const errors = {
  ...errorAnswers(EnvelopeErrorBody, [400, 401, 403, 404]),
};
const idOf = (request: FastifyRequest) => Number((request.params as { id: string }).id);
const isQueue = oneOf(OPS_WITHDRAWAL_QUEUES);
/** A numeric `:id` as the routes' params accept it, or null (a refusal is audited before the params are checked). */
const numericId = (id: string) => (/^[1-9][0-9]{0,14}$/.test(id) ? Number(id) : null);

/** Every account's withdrawals to look at, disputes by deadline, and the review queue. */
export async function consoleQueueRoutes(app: Http, deps: ConsoleRouteDeps): Promise<void> {
  app.get(
    '/api/ops/withdrawals',
    {
      config: { ...A, opsRole: 'support' },
      onRequest: deps.requireOperator,
      schema: {
        tags: ['console'],
        summary: "Every account's withdrawals in a queue (held, pending, failed or stuck), oldest first",
        querystring: WithdrawalsQuery,
        response: { 200: WithdrawalsPage, ...errors },
      },
    },
    async (request) => {
      const queue = request.query.queue ?? 'held';
      if (!isQueue(queue)) throw validation(`queue must be one of ${OPS_WITHDRAWAL_QUEUES.join(', ')}`);
      const limit = parseLimit(request.query.limit);
      const rows = await opsWithdrawals(deps.db, {
        queue,
        accountId: request.query.accountId ? Number(request.query.accountId) : null,
        after: request.query.cursor ? decodeCursor(request.query.cursor) : null,
        limit,
      });
      const kept = rows.slice(0, limit).map(opsWithdrawalView);
      return {
        data: await withAccountNames(deps.db, kept),
        nextCursor: rows.length > limit ? encodeCursor(kept[kept.length - 1]!.id) : null,
      };
    },
  );

  for (const decision of ['release', 'cancel'] as const) {
    app.post(
      `/api/ops/withdrawals/:id/${decision}`,
      {
        config: {
          ...A,
          opsRole: 'risk',
          opsAccountOf: async (id) => {
            const n = numericId(id);
            return n === null ? null : accountOfWithdrawal(deps.db, n);
          },
          errors: ['NOT_FOUND', 'INVALID_STATUS'],
        },
        onRequest: deps.requireOperator,
        preValidation: emptyBodyIsObject,
        schema: {
          tags: ['console'],
          summary:
            decision === 'release'
              ? 'Release a withdrawal waiting in AWAITING_REVIEW: it is sent to the payout provider'
              : 'Cancel a withdrawal waiting in AWAITING_REVIEW: its money returns to available, notified as withdrawal.canceled',
          params: WithdrawalIdParam,
          body: ReasonBody,
          response: { 200: OpsWithdrawal, ...errors, 409: EnvelopeErrorBody },
        },
      },
      async (request) =>
        opsWithdrawalView(await deps.actions.onWithdrawal(idOf(request), decision, operatorActor(request))),
    );
  }

  app.get(
    '/api/ops/disputes',
    {
      config: { ...A, opsRole: 'support' },
      onRequest: deps.requireOperator,
      schema: {
        tags: ['console'],
        summary: "Every account's disputes: open ones first by deadline (open=false: the closed ones too)",
        querystring: DisputesQuery,
        response: { 200: OpsDisputes, ...errors },
      },
    },
    async (request) => ({
      data: await withAccountNames(
        deps.db,
        await opsDisputes(deps.db, {
          accountId: request.query.accountId ? Number(request.query.accountId) : null,
          openOnly: request.query.open !== 'false',
          limit: 200,
        }),
      ),
    }),
  );

  app.get(
    '/api/ops/reviews',
    {
      config: { ...A, opsRole: 'support' },
      onRequest: deps.requireOperator,
      schema: {
        tags: ['console'],
        summary: 'The review queue (onboarding and risk), oldest first',
        querystring: ReviewsQuery,
        response: { 200: ReviewsPage, ...errors },
      },
    },
    async (request) => {
      const kind = request.query.kind ?? null;
      if (kind !== null && kind !== 'onboarding' && kind !== 'risk') {
        throw validation('kind must be onboarding or risk');
      }
      const limit = parseLimit(request.query.limit);
      const rows = await openReviews(deps.db, {
        kind,
        after: request.query.cursor ? decodeCursor(request.query.cursor) : null,
        limit,
      });
      const kept = rows.slice(0, limit).map(reviewView);
      return {
        data: await withAccountNames(deps.db, kept),
        nextCursor: rows.length > limit ? encodeCursor(kept[kept.length - 1]!.id) : null,
      };
    },
  );

  for (const decision of ['approve', 'reject'] as const) {
    app.post(
      `/api/ops/reviews/:id/${decision}`,
      {
        config: {
          ...A,
          opsRole: 'risk',
          opsAccountOf: async (id) => {
            const n = numericId(id);
            const review = n === null ? null : await findReview(deps.db, n);
            return review ? Number(review.account_id) : null;
          },
          // a held card sale's review is captured or voided at the acquirer
          // an onboarding review approved needs a fee plan
          errors: [
            'NOT_FOUND',
            'INVALID_STATUS',
            'CONFLICT',
            'PROCESSOR_ERROR',
            'PROCESSOR_UNAVAILABLE',
            ...(decision === 'approve' ? ['FEE_PLAN_REQUIRED' as const] : []),
          ],
        },
        onRequest: deps.requireOperator,
        preValidation: emptyBodyIsObject,
        schema: {
          tags: ['console'],
          summary: `${decision === 'approve' ? 'Approve' : 'Reject'} a review (an onboarding review decides its account and needs the admin role)`,
          params: WithdrawalIdParam,
          body: ReasonBody,
          response: {
            200: ReviewView,
            ...errors,
            ...errorAnswers(EnvelopeErrorBody, [409, 502, 503]),
          },
        },
      },
      async (request) => {
        const actor = operatorActor(request);
        const isAdmin = request.operatorSession?.operator.role === 'admin';
        const reason = request.body.reason?.trim() || null;
        return reviewView(
          await deps.actions.onReview(idOf(request), decision, reason, { ...actor, isAdmin }),
        );
      },
    );
  }
}
