import { Type } from 'typebox';
import { userActor } from '../../audit/index.js';
import type { SessionService } from '../../auth/index.js';
import { accountOf, confirmationRefusal, sessionOf } from '../../auth/index.js';
import type { Db } from '../../platform/db/db.js';
import { AppError, notFound } from '../../platform/errors/app-error.js';
import { EnvelopeErrorBody, errorAnswers } from '../../platform/http/error-schemas.js';
import { emptyBodyIsObject } from '../../platform/http/json-body.js';
import type { AuthHook, Http } from '../../platform/http/types.js';
import { parsePublicId } from '../../platform/ids/public-ids.js';
import type { Queue } from '../../platform/jobs/queue.js';
import { IdParam, WithdrawalLookup } from '../schemas.js';
import { lookupView } from '../views.js';
import { decideOnWithdrawal } from './decide.js';
import { approvalThreshold, setApprovalThreshold } from './rule.js';

const ApprovalRule = Type.Object({
  thresholdCents: Type.Union([Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()], {
    description: 'Withdrawals of at least this gross amount (cents) wait for approval; null: none do',
  }),
});

const Confirmation = Type.Object(
  {
    password: Type.Optional(Type.String({ maxLength: 1024, description: "The approver's panel password" })),
    totpCode: Type.Optional(
      Type.String({ maxLength: 16, description: 'The two-factor code instead, when it is on' }),
    ),
  },
  {
    description: "The deciding user's password, or their two-factor code when it is on (required to approve)",
    examples: [{ password: 'senha-de-quem-aprova' }],
  },
);

export interface ApprovalRouteDeps {
  db: Db;
  queue: Queue;
  sessions: SessionService;
  requireSession: AuthHook;
}

/** The approval rule and the approvers' decisions (decisions.md, Withdrawal approval). */
export async function approvalRoutes(app: Http, deps: ApprovalRouteDeps): Promise<void> {
  const shape = { errorShape: 'envelope' as const };

  app.get(
    '/api/settings/withdrawal-approval',
    {
      config: { ...shape, permission: 'money.view' },
      onRequest: deps.requireSession,
      schema: {
        tags: ['panel'],
        summary: 'The withdrawal approval rule',
        response: { 200: ApprovalRule, 401: EnvelopeErrorBody, 403: EnvelopeErrorBody },
      },
    },
    async (request) => ({ thresholdCents: await approvalThreshold(deps.db, accountOf(request)) }),
  );

  app.put(
    '/api/settings/withdrawal-approval',
    {
      config: { ...shape, permission: 'team' },
      onRequest: deps.requireSession,
      schema: {
        tags: ['panel'],
        summary: 'Set the withdrawal approval rule (null turns it off)',
        body: ApprovalRule,
        response: {
          200: ApprovalRule,
          ...errorAnswers(EnvelopeErrorBody, [400, 401, 403]),
        },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      const thresholdCents = await setApprovalThreshold(
        deps.db,
        session.accountId,
        request.body.thresholdCents,
        userActor(request, session.user),
      );
      return { thresholdCents };
    },
  );

  for (const [step, decision] of [
    ['approve', 'approved'],
    ['decline', 'declined'],
  ] as const) {
    app.post(
      `/api/withdrawals/:id/${step}`,
      {
        config: {
          ...shape,
          permission: 'withdrawals.create',
          errors: ['NOT_AWAITING_APPROVAL', 'NOT_FOUND', 'RATE_LIMITED'],
        },
        onRequest: deps.requireSession,
        preValidation: emptyBodyIsObject,
        schema: {
          tags: ['panel'],
          summary:
            step === 'approve'
              ? 'Approve a withdrawal awaiting approval (password or code of a user other than who asked): it goes to the payout provider'
              : 'Decline a withdrawal awaiting approval: it is cancelled and its money returns to available',
          params: IdParam,
          body: Confirmation,
          response: {
            200: WithdrawalLookup,
            ...errorAnswers(EnvelopeErrorBody, [400, 401, 403, 404, 409, 429]),
          },
        },
      },
      async (request) => {
        const session = sessionOf(request);
        const id = parsePublicId(request.params.id);
        if (!id) throw notFound('Withdrawal not found');
        const { password, totpCode } = request.body;
        // an approval is confirmed always; a decline when a confirmation is given
        if (step === 'approve' || password !== undefined || totpCode !== undefined) {
          if (
            !(await deps.sessions.confirm(
              { id: session.user.id, accountId: session.accountId },
              { password, totpCode },
            ))
          ) {
            throw new AppError(
              'UNAUTHORIZED',
              confirmationRefusal(session.user.totpEnabled, { password, totpCode }),
            );
          }
        }
        const row = await decideOnWithdrawal(deps.db, deps.queue, session.accountId, id, decision, {
          email: session.user.email,
          actor: userActor(request, session.user),
        });
        return lookupView(row);
      },
    );
  }
}
