import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import { AppError } from '../errors/app-error.js';
import { ipBucket } from '../net/ip.js';
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
 * How long a refusal of a per-address limit on a route without credentials is held before it is answered: a
 * source past its budget is answered at most once a second per connection, so that a flood of refusals costs
 * the process little (an open connection and a timer) instead of a request's work each time.
 */
export const REFUSAL_HOLD_MS = 1000;

/**
 * Counts one request under the names its limits give it (from the request and a subject: an account, a
 * webhook) and answers for it: sets RateLimit-Limit / -Remaining / -Reset, and past a limit throws
 * RATE_LIMITED (429 in the route's shape) with Retry-After. Synchronous when counting in this process (no
 * Redis, or Redis down), a promise when Redis counts.
 */
export type Limiter<T> = (
  request: FastifyRequest,
  reply: FastifyReply,
  subject: T,
) => undefined | Promise<void>;
/** Counts an authenticated key's request under the key and under its account (the subject). */
export type ApiKeyLimiter = Limiter<number>;

export interface RateLimits {
  /**
   * Run by API-key authentication once the key is checked: counts the request against its key
   * (RATE_LIMIT_PER_KEY a second) and its account, all its keys together (RATE_LIMIT_PER_ACCOUNT a second).
   */
  perKey: ApiKeyLimiter | null;
  /** Counts login attempts by source IP (RATE_LIMIT_LOGIN_PER_IP a minute): an onRequest hook. */
  loginPerIp: AuthHook | null;
  /** Counts test deliveries by webhook id (RATE_LIMIT_WEBHOOK_TEST a minute), once its owner is checked. */
  webhookTests: Limiter<number> | null;
  /** Counts requests to the payer's pages by source IP (RATE_LIMIT_CHECKOUT_PER_IP a minute): an onRequest hook. */
  checkoutPerIp: AuthHook | null;
  /**
   * The budget of the routes the public key alone opens (it lives in payers' browsers), apart from the pair's
   * server budget: `perIp` counts by source IP before the key is looked up (RATE_LIMIT_PUBLIC_KEY_PER_IP a
   * minute), `perKey` by public key once it is known (RATE_LIMIT_PUBLIC_KEY a second).
   */
  publicKey: PublicKeyLimits;
  /** Counts fetches of boleto PDFs by the payer's link, by source IP (RATE_LIMIT_BOLETO_PDF_PER_IP a minute). */
  boletoPdfPerIp: AuthHook | null;
  /**
   * Card testing: counts a card's tokenization by source IP (RISK_CARD_ATTEMPTS_PER_IP a minute) and by the
   * card's fingerprint, the subject (RISK_CARD_ATTEMPTS_PER_CARD an hour).
   */
  cardAttempts: Limiter<string> | null;
  close(): Promise<void>;
}

export interface PublicKeyLimits {
  perIp: Limiter<undefined> | null;
  perKey: ApiKeyLimiter | null;
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
  const keyRule: Rule<number> | null =
    config.rateLimitPerKey > 0
      ? {
          max: config.rateLimitPerKey,
          windowMs: 1000,
          count: counter(),
          // the public key, checked by the authentication that ran first: unique across databases sharing one Redis
          keyOf: (request) => `key:${String(request.headers['x-api-public-key'])}`,
        }
      : null;
  // account (and webhook) ids repeat across databases that share one Redis (staging and production, tests):
  // their counters are named after the deployment too, by a digest of its SECRETS_KEY (the same on all of
  // its processes)
  const deployment = createHmac('sha256', config.secretsKey).update('rate-limit').digest('hex').slice(0, 16);
  const accountRule: Rule<number> | null =
    config.rateLimitPerAccount > 0
      ? {
          max: config.rateLimitPerAccount,
          windowMs: 1000,
          count: counter(),
          keyOf: (_request, accountId) => `account:${deployment}:${accountId}`,
        }
      : null;
  const apiKeyRules = [keyRule, accountRule].filter((r): r is Rule<number> => r !== null);
  const login =
    config.rateLimitLoginPerIp > 0
      ? limiter<undefined>([
          {
            max: config.rateLimitLoginPerIp,
            windowMs: 60_000,
            count: counter(),
            keyOf: (request) => `login:${ipBucket(request.ip)}`,
          },
        ])
      : null;
  const perKey = apiKeyRules.length > 0 ? limiter(apiKeyRules) : null;
  const webhookTests =
    config.rateLimitWebhookTest > 0
      ? limiter<number>([
          {
            max: config.rateLimitWebhookTest,
            windowMs: 60_000,
            count: counter(),
            keyOf: (_request, webhookId) => `webhook-test:${deployment}:${webhookId}`,
          },
        ])
      : null;
  const checkout =
    config.rateLimitCheckoutPerIp > 0
      ? limiter<undefined>([
          {
            max: config.rateLimitCheckoutPerIp,
            windowMs: 60_000,
            count: counter(),
            keyOf: (request) => `checkout:${ipBucket(request.ip)}`,
          },
        ])
      : null;
  const publicPerIp =
    config.rateLimitPublicKeyPerIp > 0
      ? limiter<undefined>([
          {
            max: config.rateLimitPublicKeyPerIp,
            windowMs: 60_000,
            count: counter(),
            keyOf: (request) => `public-ip:${ipBucket(request.ip)}`,
          },
        ])
      : null;
  const publicPerKey =
    config.rateLimitPublicKey > 0
      ? limiter<number>([
          {
            max: config.rateLimitPublicKey,
            windowMs: 1000,
            count: counter(),
            keyOf: (request) => `public-key:${String(request.headers['x-api-public-key'])}`,
          },
        ])
      : null;
  const boletoPdf =
    config.rateLimitBoletoPdfPerIp > 0
      ? limiter<undefined>([
          {
            max: config.rateLimitBoletoPdfPerIp,
            windowMs: 60_000,
            count: counter(),
            keyOf: (request) => `boleto-pdf:${ipBucket(request.ip)}`,
          },
        ])
      : null;
  const cardRules: Rule<string>[] = [
    ...(config.riskCardAttemptsPerIp > 0
      ? [
          {
            max: config.riskCardAttemptsPerIp,
            windowMs: 60_000,
            count: counter(),
            keyOf: (request: FastifyRequest) => `card-ip:${deployment}:${ipBucket(request.ip)}`,
          },
        ]
      : []),
    ...(config.riskCardAttemptsPerCard > 0
      ? [
          {
            max: config.riskCardAttemptsPerCard,
            windowMs: 3_600_000,
            count: counter(),
            keyOf: (_request: FastifyRequest, fingerprint: string) => `card:${deployment}:${fingerprint}`,
          },
        ]
      : []),
  ];
  const hook = (limit: Limiter<undefined> | null): AuthHook | null =>
    limit
      ? async (request, reply) => {
          await limit(request, reply, undefined);
        }
      : null;
  return {
    perKey,
    webhookTests,
    publicKey: { perIp: held(publicPerIp), perKey: publicPerKey },
    boletoPdfPerIp: hook(held(boletoPdf)),
    cardAttempts: cardRules.length > 0 ? limiter(cardRules) : null,
    checkoutPerIp: hook(held(checkout)),
    loginPerIp: hook(login),
    close: async () => {
      redis?.disconnect();
    },
  };
}

type Counter = (key: string, windowMs: number, max: number) => Count | Promise<Count>;

/** A per-address limiter whose refusals are answered after REFUSAL_HOLD_MS. */
function held(limit: Limiter<undefined> | null): Limiter<undefined> | null {
  if (!limit) return null;
  const hold = async (err: unknown): Promise<never> => {
    if (err instanceof AppError && err.code === 'RATE_LIMITED') {
      await new Promise((resolve) => setTimeout(resolve, REFUSAL_HOLD_MS));
    }
    throw err;
  };
  return (request, reply, subject) => {
    try {
      return limit(request, reply, subject)?.catch(hold);
    } catch (err) {
      return hold(err);
    }
  };
}

/** One limit: at most `max` requests per `windowMs` under the name keyOf gives a request. */
interface Rule<T> {
  max: number;
  windowMs: number;
  count: Counter;
  keyOf: (request: FastifyRequest, subject: T) => string;
}

/**
 * Counts a request under its rules in order, each counting only what the ones before let through: a key's
 * requests refused by the key's own limit are not counted against its account, so one runaway key cannot take
 * its account's other keys down. Past a limit → RATE_LIMITED with that limit's RateLimit-* and Retry-After;
 * within them all → the RateLimit-* of the one with the fewest requests left.
 */
function limiter<T>(rules: Rule<T>[]): Limiter<T> {
  const headers = (reply: FastifyReply, rule: Rule<T>, { current, ttl }: Count): string => {
    const reset = String(Math.max(0, Math.ceil(ttl / 1000)));
    reply.header('ratelimit-limit', String(rule.max));
    reply.header('ratelimit-remaining', String(Math.max(0, rule.max - current)));
    reply.header('ratelimit-reset', reset);
    return reset;
  };
  const refuse = (reply: FastifyReply, rule: Rule<T>, count: Count): never => {
    const reset = headers(reply, rule, count);
    reply.header('retry-after', reset);
    throw new AppError(
      'RATE_LIMITED',
      `Too many requests: retry in ${Math.max(1, Math.ceil(count.ttl / 1000))} s`,
    );
  };
  return (request, reply, subject) => {
    const counts: Count[] = [];
    const counted = (i: number, count: Count) => {
      if (count.current > rules[i]!.max) refuse(reply, rules[i]!, count);
      counts.push(count);
    };
    const from = (first: number): undefined | Promise<void> => {
      for (let i = first; i < rules.length; i++) {
        const rule = rules[i]!;
        const count = rule.count(rule.keyOf(request, subject), rule.windowMs, rule.max);
        if (count instanceof Promise) {
          return count.then((c) => {
            counted(i, c);
            return from(i + 1);
          });
        }
        counted(i, count);
      }
      let pick = 0;
      for (let i = 1; i < rules.length; i++) {
        if (rules[i]!.max - counts[i]!.current < rules[pick]!.max - counts[pick]!.current) pick = i;
      }
      headers(reply, rules[pick]!, counts[pick]!);
      return undefined;
    };
    return from(0);
  };
}

function connectRedis(url: string): Redis {
  // required here, not imported at the top: a process without REDIS_URL does not load the client
  const { Redis: Client } = require('ioredis') as typeof import('ioredis');
  const redis = new Client(url, {
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
