import { Type } from 'typebox';
import { ShapeA } from '../platform/error-schemas.js';
import type { AuthHook, Http } from '../platform/http.js';
import { numericPathId } from '../platform/ids.js';
import type { CredentialService } from './credentials.service.js';
import { SESSION_COOKIE, sessionOf } from './panel-session.js';
import * as S from './schemas.js';
import { SESSION_TTL_HOURS, type SessionService } from './sessions.js';

export interface AuthRouteDeps {
  sessions: SessionService;
  credentials: CredentialService;
  requireSession: AuthHook;
  secureCookies: boolean;
  /** Counts login attempts per source IP (null: off). */
  loginLimit: AuthHook | null;
}

const A = { errorShape: 'A' as const };

export async function authRoutes(app: Http, deps: AuthRouteDeps): Promise<void> {
  const cookieOptions = {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: deps.secureCookies,
  };

  app.post(
    '/api/auth/login',
    {
      config: A,
      ...(deps.loginLimit ? { onRequest: deps.loginLimit } : {}),
      schema: {
        tags: ['panel'],
        body: S.LoginBody,
        response: { 200: S.SessionResponse, 401: ShapeA, 429: ShapeA },
      },
    },
    async (request, reply) => {
      const session = await deps.sessions.login(request.body.email, request.body.password);
      reply.setCookie(SESSION_COOKIE, session.token, { ...cookieOptions, maxAge: SESSION_TTL_HOURS * 3600 });
      reply.header('cache-control', 'no-store'); // carries the CSRF token and sets the session cookie
      return { user: session.user, csrfToken: session.csrfToken };
    },
  );

  app.post(
    '/api/auth/logout',
    {
      config: A,
      onRequest: deps.requireSession,
      schema: { tags: ['panel'], response: { 204: S.NoContent, 401: ShapeA, 403: ShapeA } },
    },
    async (request, reply) => {
      const token = request.cookies[SESSION_COOKIE];
      if (token) await deps.sessions.logout(token);
      reply.clearCookie(SESSION_COOKIE, cookieOptions);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/auth/me',
    {
      config: A,
      onRequest: deps.requireSession,
      schema: { tags: ['panel'], response: { 200: S.SessionResponse, 401: ShapeA } },
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
      config: A,
      onRequest: deps.requireSession,
      schema: { tags: ['panel'], response: { 201: S.IssuedCredential, 401: ShapeA, 403: ShapeA } },
    },
    async (request, reply) => {
      const issued = await deps.credentials.issue(sessionOf(request).user.id);
      return reply.code(201).header('cache-control', 'no-store').send(issued);
    },
  );

  app.get(
    '/api/credentials',
    {
      config: A,
      onRequest: deps.requireSession,
      schema: { tags: ['panel'], response: { 200: Type.Array(S.CredentialView), 401: ShapeA } },
    },
    async (request) => deps.credentials.list(sessionOf(request).user.id),
  );

  app.delete(
    '/api/credentials/:id',
    {
      config: A,
      onRequest: deps.requireSession,
      schema: {
        tags: ['panel'],
        params: S.IdParam,
        response: { 204: S.NoContent, 401: ShapeA, 403: ShapeA, 404: ShapeA },
      },
    },
    async (request, reply) => {
      await deps.credentials.revoke(
        sessionOf(request).user.id,
        numericPathId(request.params.id, 'No such active credential'),
      );
      return reply.code(204).send(null);
    },
  );
}
