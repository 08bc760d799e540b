import type { FastifyReply, FastifyRequest } from 'fastify';
import { constantTimeEqual } from '../platform/crypto/secrets.js';
import { AppError } from '../platform/errors/app-error.js';
import { HttpError } from '../platform/http/errors.js';
import type {} from '../platform/http/types.js';
import { accountRefusal } from './account-gate.js';
import type { AuthCache } from './auth-cache.js';
import { may } from './roles.js';
import { type NewSession, SESSION_TTL_HOURS, type Session, type SessionService } from './sessions.js';

export const SESSION_COOKIE = 'gw_session';
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

declare module 'fastify' {
  interface FastifyRequest {
    session?: Session;
  }
}

/**
 * onRequest hook for panel routes: a live session cookie, X-CSRF-Token on state-changing requests, and the
 * route's declared permission for the user's role. Its refusals are in the envelope body on every panel route (the API contract,
 * Errors), the panel's withdrawal too, whose other errors are the cashout's shapes. It runs before the body
 * is read, so a refused request writes nothing.
 */
export function panelSession(sessions: SessionService, cache: AuthCache) {
  return async function requireSession(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const token = request.cookies[SESSION_COOKIE];
    const session = token ? await sessions.find(token) : null;
    if (!session) throw new HttpError('UNAUTHORIZED', 'Log in to the panel first', 'envelope');
    const account = await cache.account(session.accountId);
    if (!account || account.status === 'closed') {
      throw new HttpError('UNAUTHORIZED', 'This account is closed', 'envelope');
    }
    if (UNSAFE.has(request.method)) {
      const header = request.headers['x-csrf-token'];
      if (typeof header !== 'string' || !constantTimeEqual(header, session.csrfToken)) {
        throw new HttpError('FORBIDDEN', 'Missing or invalid X-CSRF-Token header', 'envelope');
      }
    }
    const permission = request.routeOptions.config?.permission;
    // registration refuses a panel route without one (app.ts); this keeps a missed route closed, not open
    if (permission === undefined || (permission !== 'public' && !may(session.user.role, permission))) {
      throw new HttpError(
        'FORBIDDEN',
        `Your role (${session.user.role}) may not do this; ask an owner or admin of the account`,
        'envelope',
      );
    }
    const refused = accountRefusal(account, request.routeOptions.config?.moves);
    if (refused) throw new HttpError(refused.code, refused.message, 'envelope');
    request.session = session;
  };
}

export function cookieOptions(secure: boolean) {
  return { path: '/', httpOnly: true, sameSite: 'lax' as const, secure };
}

/** A signed-in answer (a login, an accepted invitation): the session cookie and the body with the CSRF token. */
export function signedIn(reply: FastifyReply, session: NewSession, secure: boolean) {
  reply.setCookie(SESSION_COOKIE, session.token, {
    ...cookieOptions(secure),
    maxAge: SESSION_TTL_HOURS * 3600,
  });
  reply.header('cache-control', 'no-store'); // carries the CSRF token and sets the session cookie
  return { user: session.user, csrfToken: session.csrfToken };
}

export function sessionOf(request: FastifyRequest): Session {
  if (!request.session) throw new AppError('UNAUTHORIZED', 'Log in to the panel first');
  return request.session;
}

/** The merchant account a panel request acts on. */
export function accountOf(request: FastifyRequest): number {
  return sessionOf(request).accountId;
}
