import { createRequire } from 'node:module';
import rateLimit from '@fastify/rate-limit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { AppError } from './errors.js';
import type { AuthHook, Http } from './http.js';
import { rateLimited } from './metrics.js';

type Callback = (err: Error | null, res?: { current: number; ttl: number }) => void;
interface Store {
  incr(key: string, cb: Callback, timeWindow: number, max: number): void;
  child(params: unknown): Store;
}
type StoreClass = new (continueExceeding: boolean, exponentialBackoff: boolean, ...rest: unknown[]) => Store;

// the plugin's own stores (CommonJS files inside the package)
const require = createRequire(import.meta.url);
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as StoreClass;
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as StoreClass;

export interface RateLimits {
  /** Runs after API-key authentication: counts the authenticated key (RATE_LIMIT_PER_KEY a second). */
  perKey: AuthHook | null;
  /** Counts login attempts by source IP (RATE_LIMIT_LOGIN_PER_IP a minute). */
  loginPerIp: AuthHook | null;
  close(): Promise<void>;
}

/**
 * @fastify/rate-limit, counting in Redis when REDIS_URL is set (shared by every process) and in this process
 * otherwise. When Redis cannot answer, counting falls back to this process (requests keep being served; a
 * log line says so, and another when Redis is back). A limited request answers 429 in its route's error
 * shape, with Retry-After and the RateLimit-* headers.
 */
export async function installRateLimits(app: Http, config: Config, log: Logger): Promise<RateLimits> {
  const redis = config.redisUrl ? connectRedis(config.redisUrl) : null;
  await app.register(rateLimit, {
    global: false,
    enableDraftSpec: true, // RateLimit-Limit / -Remaining / -Reset, and Retry-After on 429
    store: fallbackStore(redis, log) as never,
    errorResponseBuilder: (_request, context) =>
      new AppError(
        'RATE_LIMITED',
        `Too many requests: retry in ${Math.max(1, Math.ceil(context.ttl / 1000))} s`,
      ),
    onExceeded: (request) => rateLimited.inc({ route: request.routeOptions.url ?? 'unmatched' }),
  });
  const perKey =
    config.rateLimitPerKey > 0
      ? app.rateLimit({
          max: config.rateLimitPerKey,
          timeWindow: 1000,
          // the public key, checked by the authentication that ran first: unique across databases sharing one Redis
          keyGenerator: (request) => `key:${String(request.headers['x-api-public-key'])}`,
        })
      : null;
  const loginPerIp =
    config.rateLimitLoginPerIp > 0
      ? app.rateLimit({
          max: config.rateLimitLoginPerIp,
          timeWindow: 60_000,
          keyGenerator: (request) => `login:${request.ip}`,
        })
      : null;
  return {
    perKey: perKey as AuthHook | null,
    loginPerIp: loginPerIp as AuthHook | null,
    close: async () => {
      redis?.disconnect();
    },
  };
}

/** An authentication hook followed by a limiter: only authenticated requests count against a key. */
export function thenLimit(auth: AuthHook, limit: AuthHook | null): AuthHook {
  if (!limit) return auth;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    await auth(request, reply);
    await limit(request, reply);
  };
}

function connectRedis(url: string): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false, // a command while disconnected fails at once (→ local counting)
    maxRetriesPerRequest: 0,
    commandTimeout: 250,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  redis.on('error', () => undefined); // reported once per transition by the store
  return redis;
}

function fallbackStore(redis: Redis | null, log: Logger) {
  let shared = true;
  const degrade = (err: unknown) => {
    if (!shared) return;
    shared = false;
    log.warn({ err }, 'rate limits: Redis unavailable, counting per process until it is back');
  };
  const recover = () => {
    if (shared) return;
    shared = true;
    log.info('rate limits: Redis is back, counting shared again');
  };

  class FallbackStore implements Store {
    constructor(
      private readonly local: Store,
      private readonly remote: Store | null,
    ) {}

    incr(key: string, cb: Callback, timeWindow: number, max: number): void {
      if (!this.remote || !redis || redis.status !== 'ready') {
        if (redis) degrade(new Error(`Redis connection ${redis.status}`));
        this.local.incr(key, cb, timeWindow, max);
        return;
      }
      this.remote.incr(
        key,
        (err, res) => {
          if (err || !res) {
            degrade(err);
            this.local.incr(key, cb, timeWindow, max);
          } else {
            recover();
            cb(null, res);
          }
        },
        timeWindow,
        max,
      );
    }

    child(params: unknown): Store {
      return new FallbackStore(this.local.child(params), this.remote?.child(params) ?? null);
    }
  }

  // the plugin constructs the store class with its settings; ours closes over the two real stores instead
  return class extends FallbackStore {
    constructor(params: { continueExceeding: boolean; exponentialBackoff: boolean }) {
      super(
        new LocalStore(params.continueExceeding, params.exponentialBackoff),
        redis
          ? new RedisStore(params.continueExceeding, params.exponentialBackoff, redis, 'gateway-rl:')
          : null,
      );
    }
  };
}
