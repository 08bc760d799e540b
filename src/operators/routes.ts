import { accountNames } from '../accounts/index.js';
import { requestOrigin } from '../audit/index.js';
import type { Db } from '../platform/db/db.js';
import { EnvelopeErrorBody, errorAnswers } from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { decodeCursor, encodeCursor, parseLimit } from '../platform/paging/pagination.js';
import { listOperatorAudit } from './audit.js';
import { listOperators, operatorView } from './data.js';
import type { OperatorInvitations } from './invitations.js';
import {
  AcceptInvitationBody,
  ChangeOperatorBody,
  EnableTotpBody,
  InvitedOperator,
  InviteOperatorBody,
  OperatorAuditPage,
  OperatorAuditQuery,
  OperatorChanged,
  OperatorIdPath,
  OperatorList,
  OperatorLoginBody,
  OperatorSignedIn,
  TotpEnrolment,
} from './schemas.js';
import {
  OPS_COOKIE,
  operatorActor,
  operatorSession,
  signedInOperator,
  signedOutOperator,
} from './session.hook.js';
import type { OperatorSessions } from './sessions.js';
import type { OperatorStaff } from './staff.js';

export interface OperatorRouteDeps {
  db: Db;
  sessions: OperatorSessions;
  invitations: OperatorInvitations;
  staff: OperatorStaff;
  secureCookies: boolean;
  /** Counts sign-in attempts per source IP (null: off), shared with the panel's login. */
  loginLimit: AuthHook | null;
}

const A = { errorShape: 'envelope' as const };
const NoContent = { type: 'null', description: 'No content' } as const;

/** Operators' sign-in, their list, invitations, roles and offboarding, and the operator audit log. */
export async function operatorRoutes(app: Http, deps: OperatorRouteDeps): Promise<void> {
  const requireOperator = operatorSession(deps.sessions);
  const limited = deps.loginLimit ? { onRequest: deps.loginLimit } : {};

  app.post(
    '/api/ops/auth/accept-invitation',
    {
      config: { ...A, errors: ['INVALID_TOKEN', 'RATE_LIMITED'] },
      ...limited,
      schema: {
        tags: ['console'],
        summary: "Accept an operator's invitation: set the password; answers the TOTP secret to enrol",
        body: AcceptInvitationBody,
        response: { 200: TotpEnrolment, 400: EnvelopeErrorBody, 429: EnvelopeErrorBody },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return deps.invitations.accept(request.body.token, request.body.password);
    },
  );

  app.post(
    '/api/ops/auth/totp/enable',
    {
      config: { ...A, errors: ['INVALID_TOKEN', 'RATE_LIMITED'] },
      ...limited,
      schema: {
        tags: ['console'],
        summary: "Confirm the operator's authenticator with a code: the operator may log in from now on",
        body: EnableTotpBody,
        response: { 204: NoContent, 400: EnvelopeErrorBody, 429: EnvelopeErrorBody },
      },
    },
    async (request, reply) => {
      await deps.invitations.enableTotp(request.body.token, request.body.code, requestOrigin(request));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/ops/auth/login',
    {
      config: { ...A, errors: ['INVALID_CREDENTIALS', 'TOTP_REQUIRED', 'RATE_LIMITED'] },
      ...limited,
      schema: {
        tags: ['console'],
        summary: 'Log in to the console (password, then the TOTP code): the gw_ops cookie and a CSRF token',
        body: OperatorLoginBody,
        response: {
          200: OperatorSignedIn,
          ...errorAnswers(EnvelopeErrorBody, [400, 401, 429]),
        },
      },
    },
    async (request, reply) => {
      const { email, password, totpCode } = request.body;
      const session = await deps.sessions.login(email, password, totpCode, requestOrigin(request));
      return signedInOperator(reply, session, deps.secureCookies);
    },
  );

  app.post(
    '/api/ops/auth/logout',
    {
      config: { ...A, errors: ['UNAUTHORIZED', 'FORBIDDEN'], opsRole: 'support' },
      onRequest: requireOperator,
      schema: {
        tags: ['console'],
        summary: 'Log out of the console',
        response: { 204: NoContent, 401: EnvelopeErrorBody, 403: EnvelopeErrorBody },
      },
    },
    async (request, reply) => {
      const token = request.cookies[OPS_COOKIE];
      if (token) await deps.sessions.logout(token, operatorActor(request));
      signedOutOperator(reply, deps.secureCookies);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/ops/auth/me',
    {
      config: { ...A, errors: ['UNAUTHORIZED', 'FORBIDDEN'], opsRole: 'support' },
      onRequest: requireOperator,
      schema: {
        tags: ['console'],
        summary: 'The signed-in operator and the CSRF token of the session',
        response: { 200: OperatorSignedIn, 401: EnvelopeErrorBody },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const session = request.operatorSession!;
      return { operator: session.operator, csrfToken: session.csrfToken };
    },
  );

  app.get(
    '/api/ops/operators',
    {
      config: { ...A, opsRole: 'admin' },
      onRequest: requireOperator,
      schema: {
        tags: ['console'],
        summary: 'Every operator, their role and status',
        response: { 200: OperatorList, 401: EnvelopeErrorBody, 403: EnvelopeErrorBody },
      },
    },
    async () => ({ data: (await listOperators(deps.db)).map(operatorView) }),
  );

  app.post(
    '/api/ops/operators',
    {
      config: { ...A, opsRole: 'admin', errors: ['EMAIL_TAKEN'] },
      onRequest: requireOperator,
      schema: {
        tags: ['console'],
        summary:
          'Invite an operator: the one-time link is e-mailed to them (only there: the answer says it was sent)',
        body: InviteOperatorBody,
        response: {
          201: InvitedOperator,
          ...errorAnswers(EnvelopeErrorBody, [400, 401, 403, 409]),
        },
      },
    },
    async (request, reply) => {
      const invited = await deps.invitations.invite(
        request.body.email,
        request.body.role,
        operatorActor(request),
      );
      return reply.code(201).send({ operator: invited.operator, invitationSent: true as const });
    },
  );

  app.post(
    '/api/ops/operators/:id/resend-invitation',
    {
      config: { ...A, opsRole: 'admin', errors: ['NOT_FOUND', 'CONFLICT'] },
      onRequest: requireOperator,
      schema: {
        tags: ['console'],
        summary:
          'Send an operator who has not finished enrolling a fresh invitation by e-mail: earlier links stop working',
        params: OperatorIdPath,
        response: {
          200: InvitedOperator,
          ...errorAnswers(EnvelopeErrorBody, [400, 401, 403, 404, 409]),
        },
      },
    },
    async (request) => {
      const operator = await deps.invitations.resend(Number(request.params.id), operatorActor(request));
      return { operator, invitationSent: true as const };
    },
  );

  app.post(
    '/api/ops/operators/:id/disable',
    {
      config: { ...A, opsRole: 'admin', errors: ['NOT_FOUND', 'CONFLICT', 'FORBIDDEN'] },
      onRequest: requireOperator,
      schema: {
        tags: ['console'],
        summary:
          "Disable an operator's access: their sessions end at once, their password and authenticator are forgotten; only a new invitation brings them back",
        params: OperatorIdPath,
        response: {
          200: OperatorChanged,
          ...errorAnswers(EnvelopeErrorBody, [400, 401, 403, 404, 409]),
        },
      },
    },
    async (request) => ({
      operator: await deps.staff.disable(Number(request.params.id), operatorActor(request)),
    }),
  );

  app.patch(
    '/api/ops/operators/:id',
    {
      config: { ...A, opsRole: 'admin', errors: ['NOT_FOUND', 'CONFLICT', 'FORBIDDEN'] },
      onRequest: requireOperator,
      schema: {
        tags: ['console'],
        summary: "Change an operator's role (from their next request on)",
        params: OperatorIdPath,
        body: ChangeOperatorBody,
        response: {
          200: OperatorChanged,
          ...errorAnswers(EnvelopeErrorBody, [400, 401, 403, 404, 409]),
        },
      },
    },
    async (request) => ({
      operator: await deps.staff.changeRole(
        Number(request.params.id),
        request.body.role,
        operatorActor(request),
      ),
    }),
  );

  app.get(
    '/api/ops/audit',
    {
      config: { ...A, opsRole: 'support' },
      onRequest: requireOperator,
      schema: {
        tags: ['console'],
        summary: 'The operator audit log, newest first (append-only: nobody can change it)',
        querystring: OperatorAuditQuery,
        response: { 200: OperatorAuditPage, 400: EnvelopeErrorBody, 401: EnvelopeErrorBody },
      },
    },
    async (request) => {
      const limit = parseLimit(request.query.limit);
      const before = request.query.cursor ? decodeCursor(request.query.cursor) : null;
      const accountId = request.query.accountId ? Number(request.query.accountId) : null;
      const rows = await listOperatorAudit(deps.db, { accountId, before, limit: limit + 1 });
      const kept = rows.slice(0, limit);
      const names = await accountNames(deps.db, [
        ...new Set(kept.flatMap((r) => (r.accountId === null ? [] : [r.accountId]))),
      ]);
      return {
        data: kept.map((r) => {
          const name = r.accountId === null ? undefined : names.get(r.accountId);
          return name === undefined ? r : { ...r, accountName: name };
        }),
        nextCursor: rows.length > limit ? encodeCursor(kept[kept.length - 1]!.id) : null,
      };
    },
  );
}
