import type { FastifyReply, FastifyRequest } from 'fastify';
import { constantTimeEqual, hashSecret } from '../platform/crypto/secrets.js';
import { AppError, unauthorized } from '../platform/errors/app-error.js';
import { HttpError } from '../platform/http/errors.js';
import type { ApiKeyLimiter, PublicKeyLimits } from '../platform/http/rate-limit.js';
import { canonicalIp } from '../platform/net/ip.js';
import { accountRefusal, closedAccount } from './account-gate.js';
import type { AuthCache, CachedCredential } from './auth-cache.js';
import { defaultRouteScope, type KeyScope, scopeCovers } from './key-scopes.js';
import type { LastUseRecorder } from './last-use.js';

export interface Merchant {
  accountId: number;
  credentialId: number;
  publicKey: string;
  keyName: string;
  scope: KeyScope;
}

declare module 'fastify' {
  interface FastifyRequest {
    merchant?: Merchant;
  }
}

const KEY_SHAPE = /^[\x21-\x7e]{1,200}$/;

/**
 * onRequest hook for every API-key route: both headers → 401 (route's shape), an expired key → 401 like an
 * unknown one; then the IP allow-list → 403 IP_NOT_ALLOWED (the IP-access body); then the key's rate limit and its
 * account's (every key of the account together), when there are; then the account's standing on a route that
 * moves money (403 ACCOUNT_NOT_ACTIVE / ACCOUNT_SUSPENDED); then a key whose scope does not cover the route's
 * (`config.keyScope`) → 403 FORBIDDEN (the transaction body; the business-rule one on the cashout).
 * Every request the key holder makes counts against the key and its account, refused ones included;
 * requests with a wrong key, or from outside the allow-list, do not (they would let a stranger spend the
 * merchant's limit). Warm requests touch no database.
 */
export function apiKeyAuth(cache: AuthCache, lastUse: LastUseRecorder, limit: ApiKeyLimiter | null = null) {
  const admit = admitter(cache, lastUse, limit);
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
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
    await admit(request, reply, publicKey, cred);
  };
}

/**
 * onRequest hook of the routes a browser calls with the public key alone (card tokenization): the public key
 * names the account, and a private key, when sent too, must be its own. Everything after the key (expiry, the
 * IP allow-list, the key's scope) is as for `apiKeyAuth`. The public key is no secret (it lives in payers'
 * browsers), so what it alone opens has its own budget, and spending it leaves the pair's server budget
 * (`serverLimit`, what the private key's calls count against) untouched: a request without a private key
 * counts by source address before its key is looked up (junk keys included) and then against its public key.
 * A request with the right private key too is the merchant's server: it counts against the server budget.
 */
export function publicKeyAuth(
  cache: AuthCache,
  lastUse: LastUseRecorder,
  serverLimit: ApiKeyLimiter | null,
  publicLimits: PublicKeyLimits,
) {
  const asServer = admitter(cache, lastUse, serverLimit);
  const asBrowser = admitter(cache, lastUse, publicLimits.perKey);
  const perIp = publicLimits.perIp;
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const publicKey = request.headers['x-api-public-key'];
    const privateKey = request.headers['x-api-private-key'];
    if (privateKey === undefined && perIp) {
      const counting = perIp(request, reply, undefined);
      if (counting) await counting;
    }
    if (typeof publicKey !== 'string' || publicKey === '') {
      throw unauthorized('The X-Api-Public-Key header is required');
    }
    if (!KEY_SHAPE.test(publicKey)) throw unauthorized('Invalid API key');
    const cred = await cache.credential(publicKey);
    if (!cred) throw unauthorized('Invalid API key');
    if (privateKey === undefined) return asBrowser(request, reply, publicKey, cred);
    const presented = typeof privateKey === 'string' ? hashSecret(privateKey) : '';
    if (!constantTimeEqual(presented, cred.privateKeyHash)) throw unauthorized('Invalid API keys');
    await asServer(request, reply, publicKey, cred);
  };
}

/** A known key's own standing: unexpired, its account not closed, the request's source in the allow-list. */
async function checkKey(cache: AuthCache, request: FastifyRequest, cred: CachedCredential) {
  if (cred.expiresAt !== null && cred.expiresAt <= Date.now()) throw unauthorized('Invalid API keys');
  const account = await cache.account(cred.accountId);
  if (!account || account.status === 'closed') throw closedAccount();
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
  return account;
}

/**
 * For a request that lasts (an event stream): whether the key pair that opened it still would, by the checks of
 * its start (the pair, the key's expiry, the account not closed, the allow-list), nothing counted again; and
 * `watch`, to be told of every change of keys, lists and accounts, when to ask again. A revoked, expired or
 * rolled-out key, or a source taken off the allow-list, ends what it opened (decisions.md, "Events API").
 */
export interface KeyRecheck {
  /** False: the key no longer opens the request; else when to ask again at the latest (its expiry; epoch ms). */
  stillAdmits(request: FastifyRequest): Promise<false | number>;
  watch(onChange: () => void): () => void;
}

export function keyRecheck(cache: AuthCache): KeyRecheck {
  return {
    async stillAdmits(request) {
      const publicKey = request.headers['x-api-public-key'];
      const privateKey = request.headers['x-api-private-key'];
      if (typeof publicKey !== 'string' || typeof privateKey !== 'string' || !request.merchant) return false;
      const cred = await cache.credential(publicKey);
      if (!cred || cred.credentialId !== request.merchant.credentialId) return false;
      if (!constantTimeEqual(hashSecret(privateKey), cred.privateKeyHash)) return false;
      try {
        await checkKey(cache, request, cred);
      } catch {
        return false;
      }
      return cred.expiresAt ?? Number.POSITIVE_INFINITY;
    },
    watch: (onChange) => cache.watch(onChange),
  };
}

/** A known key's checks after the key itself: expiry, allow-list, rate limits, scope; then the request's merchant. */
function admitter(cache: AuthCache, lastUse: LastUseRecorder, limit: ApiKeyLimiter | null) {
  return async (request: FastifyRequest, reply: FastifyReply, publicKey: string, cred: CachedCredential) => {
    const account = await checkKey(cache, request, cred);
    lastUse.note(cred.credentialId, request.ip ?? null); // canonical form taken when written
    if (limit) {
      const counting = limit(request, reply, cred.accountId);
      if (counting) await counting;
    }
    const config = request.routeOptions.config;
    // the account's standing before the key's scope (decisions.md, "One admission for every charge")
    const refused = accountRefusal(account, config?.moves);
    if (refused) throw new HttpError(refused.code, refused.message, config?.keyScopeRefusal);
    const need = config?.keyScope ?? defaultRouteScope(request.method);
    if (!scopeCovers(cred.scope, need)) {
      throw new HttpError(
        'FORBIDDEN',
        `This API key's scope is "${cred.scope}"; ${request.method} ${request.routeOptions.url} needs a "${need}" key`,
        config?.keyScopeRefusal ?? 'transaction',
      );
    }
    request.merchant = {
      accountId: cred.accountId,
      credentialId: cred.credentialId,
      publicKey,
      keyName: cred.name,
      scope: cred.scope,
    };
  };
}

export function merchantOf(request: FastifyRequest): Merchant {
  if (!request.merchant) throw unauthorized();
  return request.merchant;
}
