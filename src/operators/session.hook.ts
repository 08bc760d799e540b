import type { FastifyReply, FastifyRequest } from 'fastify';
import { requestOrigin } from '../audit/index.js';
import { constantTimeEqual } from '../platform/crypto/secrets.js';
import { AppError } from '../platform/errors/app-error.js';
import { HttpError } from '../platform/http/errors.js';
import type { Http } from '../platform/http/types.js';
import type { OperatorActor } from './audit.js';
import { OPERATOR_ROLE_LABELS, type OperatorRole, roleCovers } from './roles.js';
import {
  type NewOperatorSession,
  OPERATOR_SESSION_HOURS,
  type OperatorSession,
  type OperatorSessions,
} from './sessions.js';

export const OPS_COOKIE = 'gw_ops';
/** The console's cookie is sent only to the console's page and its routes: never to the merchant panel's. */
export const OPS_COOKIE_PATHS = ['/ops', '/api/ops'] as const;
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

declare module 'fastify' {
  interface FastifyRequest {
    operatorSession?: OperatorSession;
  }
  interface FastifyContextConfig {
    /** The least operator role a console route needs (roles.ts); every /api/ops route but sign-in declares one. */
    opsRole?: OperatorRole;
    /**
     * Whose account the object of a console route's `:id` is (an anticipation, a withdrawal, a review), so that a
     * refusal beyond one's role is audited with it; routes under /api/ops/accounts/:id need none.
     */
    opsAccountOf?: (id: string) => Promise<number | null>;
  }
}

/**
 * onRequest hook of the console's routes: a live operator session cookie (a merchant's session is not one),
 * X-CSRF-Token on changes, and the route's role. Refusals are in the envelope body (shape A).
 */
export function operatorSession(sessions: OperatorSessions) {
  return async function requireOperator(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const token = request.cookies[OPS_COOKIE];
    const session = token ? await sessions.find(token) : null;
    if (!session) throw new HttpError('UNAUTHORIZED', 'Log in to the operators’ console first', 'envelope');
    if (UNSAFE.has(request.method)) {
      const header = request.headers['x-csrf-token'];
      if (typeof header !== 'string' || !constantTimeEqual(header, session.csrfToken)) {
        throw new HttpError('FORBIDDEN', 'Missing or invalid X-CSRF-Token header', 'envelope');
      }
    }
    const need = request.routeOptions.config?.opsRole;
    if (need === undefined || !roleCovers(session.operator.role, need)) {
      // an attempt beyond one's role is itself worth knowing of: audited, like every operator action
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        const params = request.params as { id?: string } | undefined;
        const path = request.url.split('?')[0]!.slice(0, 200);
        await sessions.recordDenied(
          { id: session.operator.id, email: session.operator.email, ...requestOrigin(request) },
          `${request.method} ${path}`,
          await deniedAccount(
            request.routeOptions.url,
            request.routeOptions.config?.opsAccountOf,
            params?.id,
          ),
        );
      }
      throw new HttpError(
        'FORBIDDEN',
        `This needs the ${need ?? 'admin'} role or above; yours is ${session.operator.role}`,
        'envelope',
      );
    }
    request.operatorSession = session;
  };
}

/** The account a refused attempt concerns: the route's own `:id` under /api/ops/accounts, else its object's. */
async function deniedAccount(
  route: string | undefined,
  accountOf: ((id: string) => Promise<number | null>) | undefined,
  id: string | undefined,
): Promise<number | null> {
  if (id === undefined || !/^[0-9a-f-]{1,36}$/i.test(id)) return null;
  if (route?.startsWith('/api/ops/accounts/:id')) return /^[0-9]{1,15}$/.test(id) ? Number(id) : null;
  return accountOf ? accountOf(id) : null;
}

/** A console route registered without its role fails at start-up, and the API document names it. */
export function requireDeclaredOpsRoles(app: Http): void {
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/ops/') || route.url.startsWith('/api/ops/auth/')) return;
    const role = route.config?.opsRole;
    if (role === undefined)
      throw new Error(`console route ${String(route.method)} ${route.url} declares no opsRole`);
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      app.openapiExtras.operations[`${method} ${route.url}`] = { 'x-operator-role': role };
    }
    const note = `Operators: ${role} (${OPERATOR_ROLE_LABELS[role]}) and above.`;
    if (route.schema && !route.schema.description?.includes(note)) {
      route.schema.description = route.schema.description ? `${route.schema.description}\n\n${note}` : note;
    }
  });
}

export function operatorSessionOf(request: FastifyRequest): OperatorSession {
  if (!request.operatorSession) throw new AppError('UNAUTHORIZED', 'Log in to the operators’ console first');
  return request.operatorSession;
}

/** The request's operator as the audit log names them. */
export function operatorActor(request: FastifyRequest): OperatorActor {
  const { operator } = operatorSessionOf(request);
  return { id: operator.id, email: operator.email, ...requestOrigin(request) };
}

const cookieOptions = (secure: boolean, path: string) => ({
  path,
  httpOnly: true,
  sameSite: 'strict' as const,
  secure,
});

export function signedInOperator(reply: FastifyReply, session: NewOperatorSession, secure: boolean) {
  for (const path of OPS_COOKIE_PATHS) {
    reply.setCookie(OPS_COOKIE, session.token, {
      ...cookieOptions(secure, path),
      maxAge: OPERATOR_SESSION_HOURS * 3600,
    });
  }
  reply.header('cache-control', 'no-store');
  return { operator: session.operator, csrfToken: session.csrfToken };
}

export function signedOutOperator(reply: FastifyReply, secure: boolean): void {
  for (const path of OPS_COOKIE_PATHS) reply.clearCookie(OPS_COOKIE, cookieOptions(secure, path));
}
