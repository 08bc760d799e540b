import { requestOrigin, userActor } from '../../audit/index.js';
import { EnvelopeErrorBody, errorAnswers } from '../../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../../platform/http/types.js';
import { numericPathId } from '../../platform/ids/public-ids.js';
import { sessionOf, signedIn } from '../panel-session.hook.js';
import { NoContent, SessionResponse } from '../schemas.js';
import type { AccessLinks } from './access.js';
import {
  Invitation,
  InvitationBody,
  ResetRequestBody,
  RoleBody,
  TeamList,
  TeamMember,
  TokenPasswordBody,
  UserIdParam,
} from './schemas.js';
import type { TeamService } from './team.js';

export interface TeamRouteDeps {
  team: TeamService;
  links: AccessLinks;
  requireSession: AuthHook;
  secureCookies: boolean;
  /** Counts attempts per source IP like logins (null: off). */
  loginLimit: AuthHook | null;
}

const TEAM = { errorShape: 'envelope' as const, permission: 'team' as const };
const PUBLIC = { errorShape: 'envelope' as const, permission: 'public' as const };

/** The team page's routes, and the pages the e-mailed links open (no session: the link is the credential). */
export async function teamRoutes(app: Http, deps: TeamRouteDeps): Promise<void> {
  const limited = deps.loginLimit ? { onRequest: deps.loginLimit } : {};
  const actor = (request: Parameters<typeof sessionOf>[0]) => userActor(request, sessionOf(request).user);

  app.get(
    '/api/users',
    {
      config: TEAM,
      onRequest: deps.requireSession,
      schema: {
        tags: ['panel'],
        summary: "The account's users and pending invitations",
        response: { 200: TeamList, 401: EnvelopeErrorBody, 403: EnvelopeErrorBody },
      },
    },
    async (request) => ({ data: await deps.team.list(sessionOf(request).accountId) }),
  );

  app.post(
    '/api/users/invitations',
    {
      config: { ...TEAM, errors: ['EMAIL_TAKEN', 'RATE_LIMITED'] },
      onRequest: deps.requireSession,
      schema: {
        tags: ['panel'],
        summary:
          'Invite someone by e-mail (a one-time link, valid 72 hours; 20 invitations an hour per account)',
        body: InvitationBody,
        response: {
          201: Invitation,
          ...errorAnswers(EnvelopeErrorBody, [400, 401, 403, 409, 429]),
        },
      },
    },
    async (request, reply) => {
      const invitation = await deps.team.invite(sessionOf(request), request.body, actor(request));
      return reply.code(201).send(invitation);
    },
  );

  app.put(
    '/api/users/:id',
    {
      config: { ...TEAM, errors: ['LAST_OWNER', 'NOT_FOUND'] },
      onRequest: deps.requireSession,
      schema: {
        tags: ['panel'],
        summary: "Change a user's role (only an owner makes or changes an owner; the last owner stays)",
        params: UserIdParam,
        body: RoleBody,
        response: {
          200: TeamMember,
          ...errorAnswers(EnvelopeErrorBody, [400, 401, 403, 404, 409]),
        },
      },
    },
    async (request) =>
      deps.team.changeRole(
        sessionOf(request),
        numericPathId(request.params.id, 'No such user in this account'),
        request.body.role,
        actor(request),
      ),
  );

  app.delete(
    '/api/users/:id',
    {
      config: { ...TEAM, errors: ['LAST_OWNER', 'NOT_FOUND'] },
      onRequest: deps.requireSession,
      schema: {
        tags: ['panel'],
        summary: 'Remove a user or withdraw an invitation; their sessions end at once',
        params: UserIdParam,
        response: {
          204: NoContent,
          ...errorAnswers(EnvelopeErrorBody, [401, 403, 404, 409]),
        },
      },
    },
    async (request, reply) => {
      await deps.team.remove(
        sessionOf(request),
        numericPathId(request.params.id, 'No such user in this account'),
        actor(request),
      );
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/auth/accept-invitation',
    {
      config: { ...PUBLIC, errors: ['INVALID_TOKEN', 'RATE_LIMITED'] },
      ...limited,
      schema: {
        tags: ['panel'],
        summary: 'Accept an invitation: choose a password and sign in (the answer and cookie of a login)',
        body: TokenPasswordBody,
        response: { 200: SessionResponse, 400: EnvelopeErrorBody, 429: EnvelopeErrorBody },
      },
    },
    async (request, reply) => {
      const { token, password } = request.body;
      const session = await deps.links.acceptInvitation(token, password, requestOrigin(request));
      return signedIn(reply, session, deps.secureCookies);
    },
  );

  app.post(
    '/api/auth/password-reset',
    {
      config: { ...PUBLIC, errors: ['RATE_LIMITED'] },
      ...limited,
      schema: {
        tags: ['panel'],
        summary: 'E-mail a password reset link (valid 1 hour); 202 whether or not the address has a user',
        body: ResetRequestBody,
        response: { 202: NoContent, 400: EnvelopeErrorBody, 429: EnvelopeErrorBody },
      },
    },
    async (request, reply) => {
      await deps.links.requestPasswordReset(request.body.email);
      // no body at all (the typed reply only knows the schema's null)
      return reply.code(202).send(undefined as unknown as null);
    },
  );

  app.post(
    '/api/auth/password-reset/confirm',
    {
      config: { ...PUBLIC, errors: ['INVALID_TOKEN', 'RATE_LIMITED'] },
      ...limited,
      schema: {
        tags: ['panel'],
        summary: "Set a new password with a reset link's token; every session of that user ends",
        body: TokenPasswordBody,
        response: { 204: NoContent, 400: EnvelopeErrorBody, 429: EnvelopeErrorBody },
      },
    },
    async (request, reply) => {
      const { token, password } = request.body;
      await deps.links.confirmPasswordReset(token, password, requestOrigin(request));
      return reply.code(204).send(null);
    },
  );
}
