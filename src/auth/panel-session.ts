import type { FastifyReply, FastifyRequest } from 'fastify';
import { constantTimeEqual } from '../platform/crypto/secrets.js';
import { AppError } from '../platform/http/errors.js';
import type { Session, SessionService } from './sessions.js';

export const SESSION_COOKIE = 'gw_session';
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

declare module 'fastify' {
  interface FastifyRequest {
    session?: Session;
  }
}

/**
 * onRequest hook for panel routes: a live session cookie, and X-CSRF-Token on state-changing requests. Its
 * refusals are generic authentication errors, shape A on every panel route (spec, Errors), the panel's
 * withdrawal too, whose other errors are the cashout's shapes.
 */
export function panelSession(sessions: SessionService) {
  return async function requireSession(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const token = request.cookies[SESSION_COOKIE];
    const session = token ? await sessions.find(token) : null;
    if (!session) throw new AppError('UNAUTHORIZED', 'Log in to the panel first', {}, 'envelope');
    if (UNSAFE.has(request.method)) {
      const header = request.headers['x-csrf-token'];
      if (typeof header !== 'string' || !constantTimeEqual(header, session.csrfToken)) {
        throw new AppError('FORBIDDEN', 'Missing or invalid X-CSRF-Token header', {}, 'envelope');
      }
    }
    request.session = session;
  };
}

export function sessionOf(request: FastifyRequest): Session {
  if (!request.session) throw new AppError('UNAUTHORIZED', 'Log in to the panel first');
  return request.session;
}
