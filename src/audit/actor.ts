import type { FastifyRequest } from 'fastify';
import { canonicalIp } from '../platform/net/ip.js';
import type { Actor } from './audit.data.js';

/** Where a request came from, as the audit log records it (IPv4-mapped IPv6 shown as IPv4). */
export function requestOrigin(request: FastifyRequest): { ip: string | null; userAgent: string | null } {
  const ua = request.headers['user-agent'];
  return {
    ip: canonicalIp(request.ip ?? '') ?? request.ip ?? null,
    userAgent: typeof ua === 'string' && ua !== '' ? ua : null,
  };
}

/** The panel user behind a request (the session's account). */
export function userActor(request: FastifyRequest, user: { id: number; email: string }): Actor {
  return { type: 'user', id: user.id, label: user.email, ...requestOrigin(request) };
}

/** The API key behind a request, named by its name (its public key when it has none). */
export function apiKeyActor(
  request: FastifyRequest,
  key: { credentialId: number; publicKey: string; keyName: string },
): Actor {
  return {
    type: 'api_key',
    id: key.credentialId,
    label: key.keyName || key.publicKey,
    ...requestOrigin(request),
  };
}
