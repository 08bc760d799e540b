import type { FastifyRequest } from 'fastify';
import type { Actor } from './audit.data.js';

const agentOf = (request: FastifyRequest) => {
  const ua = request.headers['user-agent'];
  return typeof ua === 'string' && ua !== '' ? ua : null;
};

/** The panel user behind a request (the session's account). */
export function userActor(request: FastifyRequest, user: { id: number; email: string }): Actor {
  return {
    type: 'user',
    id: user.id,
    label: user.email,
    ip: request.ip ?? null,
    userAgent: agentOf(request),
  };
}

/** The API key behind a request. */
export function apiKeyActor(
  request: FastifyRequest,
  key: { credentialId: number; publicKey: string },
): Actor {
  return {
    type: 'api_key',
    id: key.credentialId,
    label: key.publicKey,
    ip: request.ip ?? null,
    userAgent: agentOf(request),
  };
}
