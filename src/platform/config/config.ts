import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { parseHostList } from '../db/hosts.js';
import { type BoletoSettings, boletoSettings } from './boleto.js';
import { type CardSettings, cardSettings } from './cards.js';
import { ConfigError, choice, type Env, integer, onOff } from './parse.js';
import {
  type BcbSettings,
  bcbSettings,
  type EfiSettings,
  efiSettings,
  PAYOUT_PROVIDERS,
  type PayoutProviderName,
  PIX_PROCESSORS,
  type PixProcessorName,
  publicUrlSetting,
} from './rails.js';
import { devSecret, requireStrongSecrets, secretsKey } from './secrets.js';

export interface Config {
  logLevel: LogLevel;
  port: number;
  /** `gateway worker`'s own listener for /health and /metrics (null: none). */
  workerPort: number | null;
  host: string;
  databaseUrl: string | undefined;
  /**
   * DATABASE_DIRECT_URL: the same database reached without a pooler. Set, it says DATABASE_URL is a
   * transaction-mode pooler (PgBouncer): the connections that need a session of their own (the LISTEN
   * connection, the delivery engine's pool with its startup settings) go here, and no statement is named.
   */
  databaseDirectUrl: string | null;
  /** How long a lost primary is looked for before that is logged as an error (it is looked for until found). */
  dbFailoverTimeoutMs: number;
  /** How long a statement waits for a free pooled connection before the request answers 503. */
  dbPoolWaitMs: number;
  /** The most connections a process's main pool opens to PostgreSQL (its queue pools are apart, and small). */
  dbPoolMax: number;
  /** How long a pooled connection nobody uses stays open before it is closed. */
  dbPoolIdleMs: number;
  /** A replica the panel's lists, exports and statement may read from (null: they read the primary). */
  databaseReadUrl: string | null;
  /** A replica further behind the primary than this is not read from. */
  databaseReadMaxLagMs: number;
  dataDir: string;
  /** Where merchants reach the gateway (links in e-mails; the PSPs' callbacks). */
  publicUrl: string;
  /** PUBLIC_URL was set (not the `http://localhost:$PORT` default). */
  publicUrlGiven: boolean;
  /** Outgoing e-mail: SMTP_URL (none: each message is written as an .eml file under DATA_DIR/mail/). */
  smtpUrl: string | undefined;
  mailFrom: string;
  production: boolean;
  sandbox: boolean;
  /** SANDBOX_CASHOUT_DELAY_MS: a sandbox payout completes by itself this long after it was sent (unless decided first). */
  sandboxCashoutDelayMs: number;
  /** SIGNUP=on: anyone may sign up (POST /api/signup); the account waits for an operator's review. */
  signup: boolean;
  /** FEE_PLAN_DEFAULT: the name of the fee plan new accounts are put on (null: their own rates). */
  feePlanDefault: string | null;
  /** ANTICIPATION_AUTO_APPROVE=on: an anticipation is paid at once (default off; on in development). */
  anticipationAutoApprove: boolean;
  trustProxy: string[];
  postbackSecret: string;
  secretsKey: Buffer;
  metricsToken: string | undefined;
  redisUrl: string | undefined;
  /** Requests per API key per second; 0: off. */
  rateLimitPerKey: number;
  /** Requests per account (all its API keys together) per second; 0: off. Default 3 × rateLimitPerKey. */
  rateLimitPerAccount: number;
  /** Login attempts per source IP per minute; 0: off. */
  rateLimitLoginPerIp: number;
  /** Test deliveries (POST /api/webhook/{id}/test) per webhook per minute; 0: off. */
  rateLimitWebhookTest: number;
  /** Requests to the payer's pages of payment links and checkout sessions per source IP per minute; 0: off. */
  rateLimitCheckoutPerIp: number;
  /** Requests per public key per second on the routes the public key alone opens (card tokens); 0: off. */
  rateLimitPublicKey: number;
  /** Card tokenizations per source IP per minute (card testing); 0: off. */
  riskCardAttemptsPerIp: number;
  /** Card tokenizations per card (its fingerprint) per hour; 0: off. */
  riskCardAttemptsPerCard: number;
  /** Card refusals over attempts in an hour (at least 20) past which the account's card payments pause; 0: off. */
  riskRefusalRatio: number;
  /** New charges are refused (503) while the event loop was busier than this share (0: off). */
  chargeShedUtilization: number;
  /** RISK_REVIEW_HOURS: a card authorization held for a risk review and not decided within this is voided. */
  riskReviewHours: number;
  /** Subscriptions' dunning and boleto lead time (SUBSCRIPTION_RETRY_DAYS, SUBSCRIPTION_CANCEL_WHEN_UNPAID, BOLETO_DAYS_BEFORE). */
  subscriptions: SubscriptionSettings;
  /** Requests per source IP per minute on the routes the public key alone opens; 0: off. */
  rateLimitPublicKeyPerIp: number;
  /** Fetches of boleto PDFs by their payer's link per source IP per minute; 0: off. */
  rateLimitBoletoPdfPerIp: number;
  /** Minutes a payer's checkout cart may stay unpaid before it is abandoned (cart.abandoned). */
  cartAbandonAfterMinutes: number;
  /** Open payment streams of the hosted checkout pages per source IP; 0: no cap. */
  checkoutStreamsPerIp: number;
  webhookAllowPrivate: boolean;
  webhookRetryDelaysMs: number[];
  /** Days finished deliveries and events are kept before the daily retention job deletes them (≥ 30). */
  notificationRetentionDays: number;
  webhookTimeoutMs: number;
  /** A webhook whose last N deliveries all failed, failing for at least H hours, is disabled (decisions.md). */
  webhookDisableAfterFailures: number;
  webhookDisableAfterHours: number;
  /** How often workers look for such webhooks. */
  webhookHealthCheckMs: number;
  /** Who opens PIX charges for POST /api/transactions (decisions.md, "Sales creation and real payment rails"). */
  pixProcessor: PixProcessorName;
  bcb: BcbSettings | null;
  /** Who sends withdrawals: the sandbox, Efí's Pix send API, or nobody (they wait PENDING). */
  payoutProvider: PayoutProviderName;
  efi: EfiSettings | null;
  /** How often the job queue's upkeep fails (and so retries) jobs whose worker died. */
  jobSuperviseIntervalSeconds: number;
  /** How long finished jobs stay in the job queue's tables (the domains' own tables keep the history). */
  jobRetentionSeconds: number;
  /** The beneficiary of the boletos the gateway issues (BOLETO_*). */
  boleto: BoletoSettings;
  /** Who tokenizes cards (CARD_ACQUIRER, CIELO_*). */
  cards: CardSettings;
  /** Slow-client limits (docs/security.md): time to receive the headers, the whole request, idle keep-alive. */
  httpHeadersTimeoutMs: number;
  httpRequestTimeoutMs: number;
  httpKeepAliveTimeoutMs: number;
  /** Open connections one source address may hold; 0 = no cap. */
  httpMaxConnectionsPerIp: number;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface SubscriptionSettings {
  /** Days after a period's first failed charge on which it is tried again, ascending. */
  retryDays: number[];
  /** After the last retry fails: canceled (on) rather than unpaid. */
  cancelWhenUnpaid: boolean;
  /** A BOLETO subscription's boleto is issued this many days before its due date (the period's start). */
  boletoDaysBefore: number;
}

function subscriptionSettings(env: Env): SubscriptionSettings {
  const raw = env.SUBSCRIPTION_RETRY_DAYS;
  const parts = raw === undefined || raw === '' ? ['1', '3', '5'] : raw.split(',').map((p) => p.trim());
  const days = parts.map(Number);
  if (
    parts.length > 10 ||
    parts.some((p) => !/^\d{1,2}$/.test(p)) ||
    days.some((d, i) => d < 1 || d > 60 || (i > 0 && d <= days[i - 1]!))
  ) {
    throw new ConfigError(
      `SUBSCRIPTION_RETRY_DAYS must be up to 10 ascending whole days between 1 and 60, comma-separated (like 1,3,5), got "${raw}"`,
    );
  }
  return {
    retryDays: days,
    cancelWhenUnpaid: onOff(env, 'SUBSCRIPTION_CANCEL_WHEN_UNPAID', false),
    boletoDaysBefore: integer(env, 'BOLETO_DAYS_BEFORE', 5, 0, 30),
  };
}

function retryDelays(env: Env): number[] {
  const raw = env.WEBHOOK_RETRY_DELAYS_MS;
  if (raw === undefined || raw === '') return [60000, 600000];
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length !== 2 || parts.some((p) => !/^\d+$/.test(p))) {
    throw new ConfigError(
      `WEBHOOK_RETRY_DELAYS_MS must be two comma-separated whole numbers of milliseconds (waits before the 2nd and 3rd attempt), got "${raw}"`,
    );
  }
  return parts.map(Number);
}

function trustProxy(env: Env): string[] {
  const raw = env.TRUST_PROXY;
  if (raw === undefined || raw.trim() === '') return [];
  const entries = raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const ok = entry.includes('/') ? safe(() => ipaddr.parseCIDR(entry)) : ipaddr.isValid(entry);
    if (!ok) throw new ConfigError(`TRUST_PROXY entry "${entry}" is not an IP address or CIDR range`);
  }
  return entries;
}

function safe(fn: () => unknown): boolean {
  try {
    fn();
    return true;
  } catch {
    return false;
  }
}

function slowClientLimits(env: Env) {
  const headers = integer(env, 'HTTP_HEADERS_TIMEOUT_MS', 10000, 100, 600000);
  const request = integer(env, 'HTTP_REQUEST_TIMEOUT_MS', 30000, 100, 600000);
  if (request < headers) {
    throw new ConfigError('HTTP_REQUEST_TIMEOUT_MS must not be shorter than HTTP_HEADERS_TIMEOUT_MS');
  }
  return {
    httpHeadersTimeoutMs: headers,
    httpRequestTimeoutMs: request,
    httpKeepAliveTimeoutMs: integer(env, 'HTTP_KEEPALIVE_TIMEOUT_MS', 5000, 100, 600000),
    httpMaxConnectionsPerIp: integer(env, 'HTTP_MAX_CONNECTIONS_PER_IP', 256, 0, 1000000),
  };
}

/**
 * `secrets: false` is for the operator commands, which sign and seal nothing: they run in production without
 * POSTBACK_SECRET and SECRETS_KEY (an operator's shell need not hold the money secrets to verify the ledger)
 * and never create dev secret files in DATA_DIR. Their config's secrets are empty, so any use would fail.
 * `secrets: 'key'` is for the commands that seal a secret and sign nothing (`webhooks create`): SECRETS_KEY
 * alone.
 */
export function loadConfig(env: Env = process.env, options: { secrets?: boolean | 'key' } = {}): Config {
  const withKey = (options.secrets ?? true) !== false;
  const withSecrets = (options.secrets ?? true) === true;
  const nodeEnv = env.NODE_ENV ?? 'development';
  if (!['production', 'development', 'test'].includes(nodeEnv)) {
    throw new ConfigError(`NODE_ENV must be production, development or test, got "${nodeEnv}"`);
  }
  const production = nodeEnv === 'production';
  const dataDir = path.resolve(env.DATA_DIR || './data');
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// connection string');
  }
  const databaseReadUrl = env.DATABASE_READ_URL || null;
  if (databaseReadUrl && !databaseUrl) throw new ConfigError('DATABASE_READ_URL needs DATABASE_URL');
  const databaseDirectUrl = env.DATABASE_DIRECT_URL || null;
  if (databaseDirectUrl && !databaseUrl)
    throw new ConfigError('DATABASE_DIRECT_URL needs DATABASE_URL (the pooler it goes around)');
  for (const [name, url] of [
    ['DATABASE_URL', databaseUrl],
    ['DATABASE_DIRECT_URL', databaseDirectUrl],
    ['DATABASE_READ_URL', databaseReadUrl],
  ] as const) {
    if (url) hostListSetting(name, url);
  }
  if (production && withSecrets && !env.POSTBACK_SECRET) {
    throw new ConfigError('POSTBACK_SECRET is required in production');
  }
  if (production && withKey && !env.SECRETS_KEY)
    throw new ConfigError('SECRETS_KEY is required in production');
  if (production && withKey) {
    requireStrongSecrets(withSecrets ? env.POSTBACK_SECRET! : null, env.SECRETS_KEY!);
  }
  const host = env.HOST || '::';
  if (env.HOST && env.HOST !== 'localhost' && !ipaddr.isValid(env.HOST)) {
    throw new ConfigError(`HOST must be an IP address or localhost, got "${env.HOST}"`);
  }
  const allowPrivate = onOff(env, 'WEBHOOK_ALLOW_PRIVATE', !production);
  if (production && allowPrivate) {
    throw new ConfigError('WEBHOOK_ALLOW_PRIVATE cannot be on in production');
  }
  const redisUrl = env.REDIS_URL || undefined;
  if (redisUrl && !/^rediss?:\/\/\S+$/.test(redisUrl)) {
    throw new ConfigError('REDIS_URL must be a redis:// or rediss:// URL');
  }
  const sandbox = onOff(env, 'SANDBOX', !production);
  if (production && sandbox) throw new ConfigError('SANDBOX cannot be on in production');
  const pixProcessor = choice(env, 'PIX_PROCESSOR', PIX_PROCESSORS, sandbox ? 'sandbox' : 'none');
  if (production && pixProcessor === 'sandbox') {
    throw new ConfigError('PIX_PROCESSOR=sandbox cannot be chosen in production');
  }
  if (pixProcessor === 'sandbox' && !sandbox) throw new ConfigError('PIX_PROCESSOR=sandbox needs SANDBOX on');
  const payoutProvider = choice(env, 'PAYOUT_PROVIDER', PAYOUT_PROVIDERS, sandbox ? 'sandbox' : 'none');
  if (production && payoutProvider === 'sandbox') {
    throw new ConfigError('PAYOUT_PROVIDER=sandbox cannot be chosen in production');
  }
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const publicUrl = publicUrlSetting(
    env,
    port,
    production && (pixProcessor === 'bcb' || payoutProvider === 'efi'),
  );
  return {
    pixProcessor,
    bcb: pixProcessor === 'bcb' ? bcbSettings(env, publicUrl) : null,
    payoutProvider,
    efi: payoutProvider === 'efi' ? efiSettings(env, publicUrl) : null,
    boleto: boletoSettings(env),
    cards: cardSettings(env, production),
    logLevel: choice(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    port,
    workerPort: env.WORKER_PORT ? integer(env, 'WORKER_PORT', 0, 1, 65535) : null,
    host,
    databaseUrl,
    databaseDirectUrl,
    dbFailoverTimeoutMs: integer(env, 'DB_FAILOVER_TIMEOUT_MS', 30000, 1000, 600000),
    dbPoolWaitMs: integer(env, 'DB_POOL_WAIT_MS', 10000, 100, 600000),
    dbPoolMax: integer(env, 'DB_POOL_MAX', 20, 2, 500),
    dbPoolIdleMs: integer(env, 'DB_POOL_IDLE_MS', 30000, 100, 3600000),
    databaseReadUrl,
    databaseReadMaxLagMs: integer(env, 'DATABASE_READ_MAX_LAG_MS', 5000, 0, 3600000),
    dataDir,
    publicUrl,
    publicUrlGiven: Boolean(env.PUBLIC_URL),
    smtpUrl: smtpUrl(env),
    mailFrom: env.MAIL_FROM || 'Gateway <no-reply@localhost>',
    production,
    sandbox,
    sandboxCashoutDelayMs: integer(env, 'SANDBOX_CASHOUT_DELAY_MS', 3000, 0, 86_400_000),
    signup: onOff(env, 'SIGNUP', false),
    feePlanDefault: env.FEE_PLAN_DEFAULT?.trim() || null,
    anticipationAutoApprove: onOff(env, 'ANTICIPATION_AUTO_APPROVE', nodeEnv === 'development'),
    trustProxy: trustProxy(env),
    postbackSecret: withSecrets ? env.POSTBACK_SECRET || devSecret(dataDir, 'dev-postback-secret', 32) : '',
    secretsKey: withKey
      ? secretsKey(env.SECRETS_KEY || devSecret(dataDir, 'dev-secrets-key', 32))
      : Buffer.alloc(0),
    metricsToken: env.METRICS_TOKEN || undefined,
    redisUrl,
    ...apiKeyRateLimits(env),
    rateLimitLoginPerIp: integer(env, 'RATE_LIMIT_LOGIN_PER_IP', 20, 0, 1_000_000),
    rateLimitWebhookTest: integer(env, 'RATE_LIMIT_WEBHOOK_TEST', 10, 0, 1_000_000),
    rateLimitCheckoutPerIp: integer(env, 'RATE_LIMIT_CHECKOUT_PER_IP', 60, 0, 1_000_000),
    rateLimitPublicKey: integer(env, 'RATE_LIMIT_PUBLIC_KEY', 20, 0, 1_000_000),
    riskCardAttemptsPerIp: integer(env, 'RISK_CARD_ATTEMPTS_PER_IP', 10, 0, 1_000_000),
    riskCardAttemptsPerCard: integer(env, 'RISK_CARD_ATTEMPTS_PER_CARD', 5, 0, 1_000_000),
    riskRefusalRatio: ratio(env, 'RISK_REFUSAL_RATIO', 0.5),
    chargeShedUtilization: ratio(env, 'CHARGE_SHED_UTILIZATION', 0),
    riskReviewHours: integer(env, 'RISK_REVIEW_HOURS', 24, 1, 24 * 6),
    subscriptions: subscriptionSettings(env),
    rateLimitPublicKeyPerIp: integer(env, 'RATE_LIMIT_PUBLIC_KEY_PER_IP', 30, 0, 1_000_000),
    rateLimitBoletoPdfPerIp: integer(env, 'RATE_LIMIT_BOLETO_PDF_PER_IP', 30, 0, 1_000_000),
    cartAbandonAfterMinutes: integer(env, 'CART_ABANDON_AFTER_MINUTES', 30, 1, 10_080),
    checkoutStreamsPerIp: integer(env, 'CHECKOUT_STREAMS_PER_IP', 20, 0, 1_000_000),
    webhookAllowPrivate: allowPrivate,
    webhookRetryDelaysMs: retryDelays(env),
    notificationRetentionDays: integer(env, 'NOTIFICATION_RETENTION_DAYS', 90, 30, 36500),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10000, 1, 600000),
    webhookDisableAfterFailures: integer(env, 'WEBHOOK_DISABLE_AFTER_FAILURES', 50, 1, 100_000),
    webhookDisableAfterHours: integer(env, 'WEBHOOK_DISABLE_AFTER_HOURS', 72, 0, 8760),
    webhookHealthCheckMs: integer(env, 'WEBHOOK_HEALTH_CHECK_SECONDS', 60, 1, 86400) * 1000,
    jobSuperviseIntervalSeconds: integer(env, 'JOB_SUPERVISE_INTERVAL_SECONDS', 30, 1, 3600),
    jobRetentionSeconds: integer(env, 'JOB_RETENTION_SECONDS', 86400, 1, 30 * 86400),
    ...slowClientLimits(env),
  };
}

/** A connection string's hosts must parse (one or several, libpq's form), and name a kind of server we know. */
function hostListSetting(name: string, url: string): void {
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new ConfigError(`${name} must be a postgres:// or postgresql:// connection string`);
  }
  let attrs: string;
  try {
    attrs = parseHostList(url, 'read-write').attrs;
  } catch (err) {
    throw new ConfigError(`${name}: ${(err as Error).message}`);
  }
  if (name !== 'DATABASE_READ_URL' && attrs !== 'read-write' && attrs !== 'primary') {
    throw new ConfigError(`${name}: target_session_attrs must be read-write or primary (the gateway writes)`);
  }
}

/** A merchant's several keys together get a few keys' worth, not one each (docs/security.md). */
function apiKeyRateLimits(env: Env) {
  const rateLimitPerKey = integer(env, 'RATE_LIMIT_PER_KEY', 100, 0, 1_000_000);
  const rateLimitPerAccount = integer(env, 'RATE_LIMIT_PER_ACCOUNT', 3 * rateLimitPerKey, 0, 3_000_000);
  return { rateLimitPerKey, rateLimitPerAccount };
}

function smtpUrl(env: Env): string | undefined {
  const raw = env.SMTP_URL || undefined;
  if (raw && (!/^smtps?:\/\/\S+$/.test(raw) || !URL.canParse(raw))) {
    throw new ConfigError('SMTP_URL must be an smtp:// or smtps:// URL (smtp://user:pass@host:port)');
  }
  return raw;
}

/** A ratio from 0 to 1 (0: off). */
function ratio(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^(0(\.\d+)?|1(\.0+)?)$/.test(raw) || !Number.isFinite(value)) {
    throw new ConfigError(`${name} must be a number from 0 to 1 (0: off), got "${raw}"`);
  }
  return value;
}
