import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthHook } from '../platform/http/types.js';
import { type KeyScope, scopeCovers } from './key-scopes.js';
import { accountOf, SESSION_COOKIE, sessionOf } from './panel-session.hook.js';
import { may, type Permission } from './roles.js';

/**
 * One route, two doors (GET /api/fees, /api/anticipations): a request carrying the panel's session cookie and
 * no key header comes in by the panel's door (CSRF, the route's permission; errors in the envelope, shape
 * A); any other by the API key's (scope; errors in the route's own family, shape D).
 */
export function apiKeyOrSession(apiKey: AuthHook, requireSession: AuthHook): AuthHook {
  return async function eitherDoor(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const byKey =
      request.headers['x-api-public-key'] !== undefined || request.headers['x-api-private-key'] !== undefined;
    if (!byKey && request.cookies[SESSION_COOKIE] !== undefined) {
      request.errorShape = 'envelope';
      return requireSession(request, reply);
    }
    return apiKey(request, reply);
  };
}

/** The account a request of either door acts on. */
export function requestAccount(request: FastifyRequest): number {
  return request.merchant?.accountId ?? accountOf(request);
}

/**
 * Whether the caller of either door could do what needs `permission` in the panel or `scope` by key: for a read
 * route that answers something only they may have (a customer's billing page link, which changes a card and
 * cancels), to a caller who may only read.
 */
export function requestMay(request: FastifyRequest, permission: Permission, scope: KeyScope): boolean {
  if (request.merchant) return scopeCovers(request.merchant.scope, scope);
  return may(sessionOf(request).user.role, permission);
}
