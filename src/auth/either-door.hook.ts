import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthHook } from '../platform/http/types.js';
import { accountOf, SESSION_COOKIE } from './panel-session.hook.js';

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
