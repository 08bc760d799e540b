import { Type } from 'typebox';
import {
  Anticipation,
  type Anticipations,
  accountOfAnticipation,
  listAnticipations,
} from '../anticipations/index.js';
import { operatorActor, recordOperatorAudit } from '../operators/index.js';
import type { Db } from '../platform/db/db.js';
import { validation } from '../platform/errors/app-error.js';
import { ListPage } from '../platform/http/common-schemas.js';
import { EnvelopeErrorBody, errorAnswers } from '../platform/http/error-schemas.js';
import { emptyBodyIsObject } from '../platform/http/json-body.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { decodeCursor, pageOf, parseLimit } from '../platform/paging/pagination.js';
import { OpsAnticipation, ReasonBody } from './schemas.js';
import { withAccountNames } from './views.js';

const A = { errorShape: 'envelope' as const };
const errors = {
  ...errorAnswers(EnvelopeErrorBody, [400, 401, 403, 404]),
};
const STATUSES = ['requested', 'approved', 'rejected', 'paid'] as const;
const UuidParam = Type.Object({ id: Type.String({ format: 'uuid' }) });
/** Each anticipation with whose it is, as the console's other lists. */
const OpsAnticipationPage = ListPage(OpsAnticipation);

/** Anticipations waiting for a finance operator (ANTICIPATION_AUTO_APPROVE off), and the decision on each. */
export async function consoleAnticipationRoutes(
  app: Http,
  deps: { db: Db; anticipations: Anticipations; requireOperator: AuthHook },
): Promise<void> {
  app.get(
    '/api/ops/anticipations',
    {
      config: { ...A, opsRole: 'support' },
      onRequest: deps.requireOperator,
      schema: {
        tags: ['console'],
        summary:
          "Every account's anticipations, newest first; ?status=requested: those waiting for a decision",
        querystring: Type.Object({
          status: Type.Optional(Type.String()),
          cursor: Type.Optional(Type.String()),
          limit: Type.Optional(Type.String()),
        }),
        response: { 200: OpsAnticipationPage, ...errors },
      },
    },
    async (request) => {
      const { status } = request.query;
      if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) {
        throw validation(`status must be one of ${STATUSES.join(', ')}`);
      }
      const limit = parseLimit(request.query.limit);
      const rows = await listAnticipations(deps.db, {
        accountId: null,
        status: (status as (typeof STATUSES)[number] | undefined) ?? null,
        before: request.query.cursor === undefined ? null : decodeCursor(request.query.cursor),
        limit: limit + 1,
      });
      const page = pageOf(
        rows.map((r) => ({ ...r, id: Number(r.id) })),
        limit,
      );
      const views = await deps.anticipations.viewsOf(deps.db, page.rows);
      const data = await withAccountNames(
        deps.db,
        views.map((v, i) => ({ ...v, accountId: Number(page.rows[i]!.account_id) })),
      );
      return { data, nextCursor: page.nextCursor };
    },
  );

  for (const decision of ['approve', 'reject'] as const) {
    app.post(
      `/api/ops/anticipations/:id/${decision}`,
      {
        config: {
          ...A,
          opsRole: 'finance',
          opsAccountOf: (id) => accountOfAnticipation(deps.db, id),
          errors: ['NOT_FOUND', 'INVALID_STATUS'],
        },
        onRequest: deps.requireOperator,
        schema: {
          tags: ['console'],
          summary:
            decision === 'approve'
              ? 'Approve a requested anticipation: paid at once, or rejected if its receivables are no longer there (audited)'
              : 'Reject a requested anticipation: its receivables are free again (audited)',
          params: UuidParam,
          body: ReasonBody,
          response: { 200: Anticipation, ...errors, 409: EnvelopeErrorBody },
        },
        preValidation: emptyBodyIsObject,
      },
      async (request) => {
        const actor = operatorActor(request);
        const reason = (request.body as { reason?: string }).reason?.trim() || null;
        return deps.anticipations.decide(
          request.params.id,
          decision,
          actor.email,
          reason,
          (tx, before, after) =>
            recordOperatorAudit(tx, actor, {
              action: `anticipation.${decision === 'approve' ? 'approved' : 'rejected'}`,
              accountId: Number(before.account_id),
              target: `anticipation:${before.uuid}`,
              before: { status: before.status },
              after: { status: after.status, reason: after.reason },
            }),
        );
      },
    );
  }
}
