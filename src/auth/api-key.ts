import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../platform/db.js';
import { AppError, unauthorized } from '../platform/errors.js';
import { canonicalIp } from '../platform/ip.js';
import type { AuthCache } from './auth-cache.js';
import { touchLastUsed } from './credentials.data.js';
import { constantTimeEqual, hashSecret } from './secrets.js';

export interface Merchant {
  accountId: number;
  credentialId: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    merchant?: Merchant;
  }
}

const LAST_USED_EVERY_MS = 60_000;
const KEY_SHAPE = /^[\x21-\x7e]{1,200}$/;

/**
 * onRequest hook for every API-key route: both headers → 401 (route's shape); then the IP allow-list →
 * 403 IP_NOT_ALLOWED (shape B). Warm requests touch no database.
 */
export function apiKeyAuth(db: Db, cache: AuthCache) {
  const lastTouched = new Map<number, number>();
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const publicKey = request.headers['x-api-public-key'];
    const privateKey = request.headers['x-api-private-key'];
    if (
      typeof publicKey !== 'string' ||
      typeof privateKey !== 'string' ||
      publicKey === '' ||
      privateKey === ''
    ) {
      throw unauthorized('Both X-Api-Public-Key and X-Api-Private-Key headers are required');
    }
    if (!KEY_SHAPE.test(publicKey) || !KEY_SHAPE.test(privateKey)) throw unauthorized('Invalid API keys');
    const cred = await cache.credential(publicKey);
    const presented = hashSecret(privateKey);
    if (!cred) {
      constantTimeEqual(presented, presented);
      throw unauthorized('Invalid API keys');
    }
    if (!constantTimeEqual(presented, cred.privateKeyHash)) throw unauthorized('Invalid API keys');

    const allowed = await cache.allowedIps(cred.accountId);
    if (allowed.size > 0) {
      const source = canonicalIp(request.ip ?? '');
      if (!source || !allowed.has(source)) {
        throw new AppError(
          'IP_NOT_ALLOWED',
          `Source IP ${source ?? request.ip} is not in this account's allow-list`,
        );
      }
    }
    request.merchant = { accountId: cred.accountId, credentialId: cred.credentialId };

    const now = Date.now();
    if ((lastTouched.get(cred.credentialId) ?? 0) + LAST_USED_EVERY_MS < now) {
      lastTouched.set(cred.credentialId, now);
      touchLastUsed(db, cred.credentialId).catch((err: unknown) =>
        request.log.warn({ err }, 'could not record key last use'),
      );
    }
  };
}

export function merchantOf(request: FastifyRequest): Merchant {
  if (!request.merchant) throw unauthorized();
  return request.merchant;
}
