import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { requestOrigin, userActor } from '../audit/index.js';
import { EnvelopeErrorBody, errorAnswers } from '../platform/http/error-schemas.js';
import { emptyBodyIsObject } from '../platform/http/json-body.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { numericPathId } from '../platform/ids/public-ids.js';
import type { CredentialService } from './credentials.js';
import { accountOf, cookieOptions, SESSION_COOKIE, sessionOf, signedIn } from './panel-session.hook.js';
import {
  CredentialBody,
  CredentialView,
  IdParam,
  IssuedCredential,
  LoginBody,
  NarrowBody,
  NoContent,
  RollBody,
  SessionResponse,
  TotpCodeBody,
  TotpSetup,
} from './schemas.js';
import type { RequestOrigin, SessionService } from './sessions.js';
import type { TotpService } from './totp.js';

export interface AuthRouteDeps {
  sessions: SessionService;
  credentials: CredentialService;
  totp: TotpService;
  requireSession: AuthHook;
  secureCookies: boolean;
  /** Counts login attempts per source IP (null: off). */
  loginLimit: AuthHook | null;
}

const A = { errorShape: 'envelope' as const };
/** Route config by what a route needs of the session user's role. */
const PUBLIC = { ...A, permission: 'public' as const };
const SELF = { ...A, permission: 'self' as const };
const KEYS = { ...A, permission: 'integrations' as const };

const originOf = (request: FastifyRequest): RequestOrigin => requestOrigin(request);

/** The session's user as the audit log's actor. */
function actor(request: FastifyRequest) {
  return userActor(request, sessionOf(request).user);
}

/** The session's user as a key's creator: what bounds the keys they make. */
function creator(request: FastifyRequest) {
  const { user } = sessionOf(request);
  return { userId: user.id, role: user.role };
}

export async function authRoutes(app: Http, deps: AuthRouteDeps): Promise<void> {
  app.post(
    '/api/auth/login',
    {
      config: { ...PUBLIC, errors: ['RATE_LIMITED', 'TOTP_REQUIRED', 'UNAUTHORIZED'] },
      ...(deps.loginLimit ? { onRequest: deps.loginLimit } : {}),
      schema: {
        summary: 'Log in to the panel (a session cookie and a CSRF token; totpCode when two-factor is on)',
        tags: ['panel'],
        body: LoginBody,
        response: {
          200: SessionResponse,
          ...errorAnswers(EnvelopeErrorBody, [400, 401, 429]),
        },
      },
    },
    async (request, reply) => {
      const { email, password, totpCode } = request.body;
      const session = await deps.sessions.login(email, password, totpCode, originOf(request));
      return signedIn(reply, session, deps.secureCookies);
    },
  );

  app.post(
    '/api/auth/logout',
    {
      config: SELF,
      onRequest: deps.requireSession,
      schema: {
        summary: 'Log out: the panel session ends',
        tags: ['panel'],
        response: { 204: NoContent, 401: EnvelopeErrorBody, 403: EnvelopeErrorBody },
      },
    },
    async (request, reply) => {
      const token = request.cookies[SESSION_COOKIE];
      if (token) await deps.sessions.logout(token, sessionOf(request), originOf(request));
      reply.clearCookie(SESSION_COOKIE, cookieOptions(deps.secureCookies));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/auth/me',
    {
      config: SELF,
      onRequest: deps.requireSession,
      schema: {
        summary: 'The logged-in account and its session',
        tags: ['panel'],
        response: { 200: SessionResponse, 401: EnvelopeErrorBody },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      reply.header('cache-control', 'no-store'); // carries the CSRF token
      return { user: session.user, csrfToken: session.csrfToken };
    },
  );

  app.post(
    '/api/credentials',
    {
      config: { ...KEYS, errors: ['TOO_MANY_KEYS'] },
      onRequest: deps.requireSession,
      preValidation: emptyBodyIsObject,
      schema: {
        tags: ['panel'],
        summary: 'Generate an API key pair (the private key is shown only in this response)',
        body: CredentialBody,
        response: {
          201: IssuedCredential,
          ...errorAnswers(EnvelopeErrorBody, [400, 401, 403, 409]),
        },
      },
    },
    async (request, reply) => {
      const issued = await deps.credentials.issue(
        accountOf(request),
        request.body,
        actor(request),
        creator(request),
      );
      return reply.code(201).header('cache-control', 'no-store').send(issued);
    },
  );

  app.post(
    '/api/credentials/:id/roll',
    {
      config: { ...KEYS, errors: ['NOT_FOUND', 'TOO_MANY_KEYS'] },
      onRequest: deps.requireSession,
      schema: {
        tags: ['panel'],
        summary: 'Replace a key pair; the old one keeps working for graceHours',
        params: IdParam,
        body: RollBody,
        response: {
          201: IssuedCredential,
          ...errorAnswers(EnvelopeErrorBody, [400, 401, 403, 404, 409]),
        },
      },
    },
    async (request, reply) => {
      const issued = await deps.credentials.roll(
        accountOf(request),
        numericPathId(request.params.id, 'No such active credential'),
        request.body.graceHours,
        actor(request),
        creator(request),
      );
      return reply.code(201).header('cache-control', 'no-store').send(issued);
    },
  );

  app.patch(
    '/api/credentials/:id',
    {
      config: { ...KEYS, errors: ['NOT_FOUND'] },
      onRequest: deps.requireSession,
      schema: {
        tags: ['panel'],
        summary:
          'Narrow a key pair in place (same keys, a scope no wider than it has); the user becomes its creator',
        params: IdParam,
        body: NarrowBody,
        response: {
          200: CredentialView,
          ...errorAnswers(EnvelopeErrorBody, [400, 401, 403, 404]),
        },
      },
    },
    async (request) =>
      deps.credentials.narrow(
        accountOf(request),
        numericPathId(request.params.id, 'No such active credential'),
        request.body.scope,
        actor(request),
        creator(request),
      ),
  );

  app.get(
    '/api/credentials',
    {
      config: KEYS,
      onRequest: deps.requireSession,
      schema: {
        summary: "The account's API key pairs (never their private keys)",
        tags: ['panel'],
        response: { 200: Type.Array(CredentialView), 401: EnvelopeErrorBody },
      },
    },
    async (request) => deps.credentials.list(accountOf(request)),
  );

  app.delete(
    '/api/credentials/:id',
    {
      config: { ...KEYS, errors: ['NOT_FOUND', 'FORBIDDEN'] },
      onRequest: deps.requireSession,
      schema: {
        summary:
          'Revoke an API key pair at once, on every process (only by someone who could have made it: a developer never revokes a full key)',
        tags: ['panel'],
        params: IdParam,
        response: { 204: NoContent, 401: EnvelopeErrorBody, 403: EnvelopeErrorBody, 404: EnvelopeErrorBody },
      },
    },
    async (request, reply) => {
      await deps.credentials.revoke(
        accountOf(request),
        numericPathId(request.params.id, 'No such active credential'),
        actor(request),
        creator(request),
      );
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/auth/totp/setup',
    {
      config: { ...SELF, errors: ['CONFLICT'] },
      onRequest: deps.requireSession,
      schema: {
        tags: ['panel'],
        summary: 'Start two-factor setup: a new secret to add to an authenticator app',
        response: { 200: TotpSetup, 401: EnvelopeErrorBody, 403: EnvelopeErrorBody, 409: EnvelopeErrorBody },
      },
    },
    async (request, reply) => {
      const setup = await deps.totp.setup(sessionOf(request).user.id);
      return reply.header('cache-control', 'no-store').send(setup);
    },
  );

  for (const step of ['enable', 'disable'] as const) {
    app.post(
      `/api/auth/totp/${step}`,
      {
        config: { ...SELF, errors: ['CONFLICT'] },
        onRequest: deps.requireSession,
        schema: {
          tags: ['panel'],
          summary:
            step === 'enable' ? 'Turn two-factor login on with a first code' : 'Turn two-factor login off',
          body: TotpCodeBody,
          response: {
            204: NoContent,
            ...errorAnswers(EnvelopeErrorBody, [400, 401, 403, 409, 429]),
          },
        },
      },
      async (request, reply) => {
        await deps.totp[step](sessionOf(request).user.id, request.body.code, actor(request));
        return reply.code(204).send(null);
      },
    );
  }
}
