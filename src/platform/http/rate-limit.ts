import { createRequire } from 'node:module';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import { rateLimited } from '../observability/metrics.js';
import { AppError } from './errors.js';
import type { AuthHook } from './types.js';

interface Count {
  current: number;
  /** Milliseconds left in the current window. */
  ttl: number;
}
type Callback = (err: Error | null, res?: Count | null) => void;
interface Store {
  incr(key: string, cb: Callback, timeWindow: number, max: number): void;
}
type StoreClass = new (continueExceeding: boolean, exponentialBackoff: boolean, ...rest: unknown[]) => Store;

// @fastify/rate-limit's own counting stores (CommonJS files inside the package): a fixed window per key, in an
// LRU map in this process or in one Lua call to Redis
const require = createRequire(import.meta.url);
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as StoreClass;
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as StoreClass;

/** Keys one process keeps counts of (least recently used first out): far more than are active in one window. */
const LOCAL_KEYS = 100_000;

/**
 * Counts one request under a key and answers for it: sets RateLimit-Limit / -Remaining / -Reset, and past the
 * limit throws RATE_LIMITED (429 in the route's shape) with Retry-After. Synchronous when counting in this
 * process (no Redis, or Redis down), a promise when Redis counts.
 */
export type Limiter = (request: FastifyRequest, reply: FastifyReply) => undefined | Promise<void>;

export interface RateLimits {
  /** Run by API-key authentication once the key is checked: counts it (RATE_LIMIT_PER_KEY a second). */
  perKey: Limiter | null;
  /** Counts login attempts by source IP (RATE_LIMIT_LOGIN_PER_IP a minute): an onRequest hook. */
  loginPerIp: AuthHook | null;
  close(): Promise<void>;
}

/**
 * Rate limits with @fastify/rate-limit's stores, counting in Redis when REDIS_URL is set (shared by every
 * process) and in this process otherwise. When Redis cannot answer, counting falls back to this process
 * (requests keep being served; a log line says so, and another when Redis is back).
 *
 * The plugin's own hook is not used: on the cheapest route (the balance read) its promise-per-step request
 * handler cost more of the throughput than the limiter's budget (docs/performance.md). The counting, which
 * is what must be right, stays the library's; what is ours is reading the count and setting headers.
 */
export function installRateLimits(config: Config, log: Logger): RateLimits {
  const redis = config.redisUrl ? connectRedis(config.redisUrl) : null;
  const counter = fallbackCounters(redis, log);
  const perKey =
    config.rateLimitPerKey > 0
      ? limiter(counter(), config.rateLimitPerKey, 1000, (request) => {
          // the public key, checked by the authentication that ran first: unique across databases sharing one Redis
          return `key:${String(request.headers['x-api-public-key'])}`;
        })
      : null;
  const login =
    config.rateLimitLoginPerIp > 0
      ? limiter(counter(), config.rateLimitLoginPerIp, 60_000, (request) => `login:${request.ip}`)
      : null;
  return {
    perKey,
    loginPerIp: login
      ? async (request, reply) => {
          await login(request, reply);
        }
      : null,
    close: async () => {
      redis?.disconnect();
    },
  };
}

type Counter = (key: string, windowMs: number, max: number) => Count | Promise<Count>;

function limiter(
  count: Counter,
  max: number,
  windowMs: number,
  keyOf: (request: FastifyRequest) => string,
): Limiter {
  const limitHeader = String(max);
  const answer = (request: FastifyRequest, reply: FastifyReply, { current, ttl }: Count): undefined => {
    const reset = String(Math.max(0, Math.ceil(ttl / 1000)));
    reply.header('ratelimit-limit', limitHeader);
    reply.header('ratelimit-remaining', String(Math.max(0, max - current)));
    reply.header('ratelimit-reset', reset);
    if (current <= max) return undefined;
    rateLimited.inc({ route: request.routeOptions.url ?? 'unmatched' });
    reply.header('retry-after', reset);
    throw new AppError('RATE_LIMITED', `Too many requests: retry in ${Math.max(1, Math.ceil(ttl / 1000))} s`);
  };
  return (request, reply) => {
    const counted = count(keyOf(request), windowMs, max);
    if (counted instanceof Promise) return counted.then((c) => answer(request, reply, c));
    return answer(request, reply, counted);
  };
}

function connectRedis(url: string): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false, // a command while disconnected fails at once (→ local counting)
    maxRetriesPerRequest: 0,
    commandTimeout: 250,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  redis.on('error', () => undefined); // reported once per transition by the counter
  return redis;
}

/**
 * Counters that count in Redis while it answers, else in this process (LocalStore calls back at once). Each
 * limiter gets its own local store, so a flood of one kind (logins from many addresses) cannot evict the
 * other's counts.
 */
function fallbackCounters(redis: Redis | null, log: Logger): () => Counter {
  const remote = redis ? new RedisStore(false, false, redis, 'gateway-rl:') : null;
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
  return () => {
    const local = new LocalStore(false, false, LOCAL_KEYS);
    const countLocally = (key: string, windowMs: number, max: number): Count => {
      let result: Count | undefined;
      local.incr(key, (_err, res) => (result = res ?? undefined), windowMs, max);
      if (!result) throw new Error('rate limit store answered nothing');
      return result;
    };
    return (key, windowMs, max) => {
      if (!remote || !redis || redis.status !== 'ready') {
        if (redis) degrade(new Error(`Redis connection ${redis.status}`));
        return countLocally(key, windowMs, max);
      }
      return new Promise<Count>((resolve) => {
        remote.incr(
          key,
          (err, res) => {
            if (err || !res) {
              degrade(err);
              resolve(countLocally(key, windowMs, max));
            } else {
              recover();
              resolve(res);
            }
          },
          windowMs,
          max,
        );
      });
    };
  };
}
