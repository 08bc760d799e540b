import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ipaddr from 'ipaddr.js';

export interface Config {
  logLevel: LogLevel;
  port: number;
  /** `gateway worker`'s own listener for /health and /metrics (null: none). */
  workerPort: number | null;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  production: boolean;
  sandbox: boolean;
  trustProxy: string[];
  postbackSecret: string;
  secretsKey: Buffer;
  metricsToken: string | undefined;
  redisUrl: string | undefined;
  /** Requests per API key per second; 0: off. */
  rateLimitPerKey: number;
  /** Login attempts per source IP per minute; 0: off. */
  rateLimitLoginPerIp: number;
  webhookAllowPrivate: boolean;
  webhookRetryDelaysMs: number[];
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
  /** Slow-client limits (docs/security.md): time to receive the headers, the whole request, idle keep-alive. */
  httpHeadersTimeoutMs: number;
  httpRequestTimeoutMs: number;
  httpKeepAliveTimeoutMs: number;
  /** Open connections one source address may hold; 0 = no cap. */
  httpMaxConnectionsPerIp: number;
}

export const PIX_PROCESSORS = ['sandbox', 'bcb', 'none'] as const;
export const PAYOUT_PROVIDERS = ['sandbox', 'efi', 'none'] as const;
export type PayoutProviderName = (typeof PAYOUT_PROVIDERS)[number];

/** PAYOUT_PROVIDER=efi: Efí's Pix API (the same mTLS credentials as its standard API Pix) and the payer key. */
export interface EfiSettings {
  api: BcbSettings;
  /** The gateway's own Pix key at Efí, debited by every send. */
  payerKey: string;
  timeoutMs: number;
}

/** PIX_PROCESSOR=bcb: a PSP's standard API Pix over mutual TLS (PEM contents read from the file settings). */
export interface BcbSettings {
  apiUrl: string;
  oauthUrl: string;
  clientId: string;
  clientSecret: string;
  cert: string;
  key: string;
  ca: string;
  receiverKey: string;
  publicUrl: string;
  merchantName: string;
  merchantCity: string;
  /**
   * PIX_AUTOMATICO_ACCOUNT: the account that Pix Automático mandates the PSP reports approved belong to (the
   * merchant of record's mandates are created at the PSP, not through the API); unset: none is recorded.
   */
  recurrenceAccountId: number | null;
}
export type PixProcessorName = (typeof PIX_PROCESSORS)[number];

export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

type Env = Record<string, string | undefined>;

function onOff(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = raw.toLowerCase();
  if (['on', 'true', '1', 'yes'].includes(v)) return true;
  if (['off', 'false', '0', 'no'].includes(v)) return false;
  throw new ConfigError(`${name} must be on/off (or true/false, 1/0, yes/no), got "${raw}"`);
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function choice<T extends string>(env: Env, name: string, options: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(options as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${options.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function efiSettings(env: Env, publicUrl: string): EfiSettings {
  try {
    return {
      api: bcbSettings(env, publicUrl),
      payerKey: env.PAYOUT_PIX_KEY || env.PIX_KEY_RECEIVER!,
      timeoutMs: integer(env, 'PAYOUT_TIMEOUT_MS', 30_000, 100, 120_000),
    };
  } catch (err) {
    if (err instanceof ConfigError)
      throw new ConfigError(err.message.replace('PIX_PROCESSOR=bcb', 'PAYOUT_PROVIDER=efi'));
    throw err;
  }
}

function bcbSettings(env: Env, publicUrl: string): BcbSettings {
  const names = [
    'PIX_API_URL',
    'PIX_OAUTH_URL',
    'PIX_CLIENT_ID',
    'PIX_CLIENT_SECRET',
    'PIX_CERT',
    'PIX_KEY',
    'PIX_CA',
    'PIX_KEY_RECEIVER',
  ];
  const missing = names.filter((n) => !env[n]);
  if (missing.length > 0) throw new ConfigError(`PIX_PROCESSOR=bcb needs ${missing.join(', ')}`);
  for (const n of ['PIX_API_URL', 'PIX_OAUTH_URL']) {
    if (!/^https:\/\/\S+$/.test(env[n]!)) throw new ConfigError(`${n} must be an https:// URL`);
  }
  const pem = (n: string) => {
    try {
      return readFileSync(env[n]!, 'utf8');
    } catch {
      throw new ConfigError(`${n} must be the path of a readable PEM file, got "${env[n]}"`);
    }
  };
  return {
    apiUrl: env.PIX_API_URL!.replace(/\/+$/, ''),
    oauthUrl: env.PIX_OAUTH_URL!,
    clientId: env.PIX_CLIENT_ID!,
    clientSecret: env.PIX_CLIENT_SECRET!,
    cert: pem('PIX_CERT'),
    key: pem('PIX_KEY'),
    ca: pem('PIX_CA'),
    receiverKey: env.PIX_KEY_RECEIVER!,
    publicUrl,
    merchantName: env.PIX_MERCHANT_NAME || 'GATEWAY',
    merchantCity: env.PIX_MERCHANT_CITY || 'SAO PAULO',
    recurrenceAccountId: accountIdSetting(env, 'PIX_AUTOMATICO_ACCOUNT'),
  };
}

/**
 * The gateway's public origin (decisions.md: default `http://localhost:$PORT`). In production with a real PSP
 * it must be given: the PSP's webhooks are registered under it, and no PSP reaches a localhost.
 */
function publicUrlSetting(env: Env, port: number, required: boolean): string {
  const raw = env.PUBLIC_URL;
  if (!raw) {
    if (required)
      throw new ConfigError('PUBLIC_URL is required in production with a PSP (its webhooks call it)');
    return `http://localhost:${port}`;
  }
  if (!/^https?:\/\/\S+$/.test(raw) || !URL.canParse(raw)) {
    throw new ConfigError(`PUBLIC_URL must be an http(s):// URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

function accountIdSetting(env: Env, name: string): number | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  if (!/^[1-9]\d{0,15}$/.test(raw))
    throw new ConfigError(`${name} must be a numeric account id, got "${raw}"`);
  return Number(raw);
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

/** A development secret generated once and kept in DATA_DIR, so restarts keep decrypting what was stored. */
function devSecret(dataDir: string, file: string, bytes: number): string {
  const p = path.join(dataDir, file);
  if (existsSync(p)) return readFileSync(p, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  // written whole under a temporary name, then linked into place: processes starting together never read a
  // file another one has created but not yet written (they all read the one that won the link)
  const tmp = `${p}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, randomBytes(bytes).toString('base64'), { mode: 0o600, flag: 'wx' });
  try {
    linkSync(tmp, p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err; // another process created it first
  } finally {
    unlinkSync(tmp);
  }
  return readFileSync(p, 'utf8').trim();
}

function secretsKey(raw: string): Buffer {
  const key = Buffer.from(raw, 'base64');
  if (key.length !== 32 || key.toString('base64').replace(/=+$/, '') !== raw.trim().replace(/=+$/, '')) {
    throw new ConfigError(
      'SECRETS_KEY must be exactly 32 bytes encoded in base64 (e.g. `openssl rand -base64 32`)',
    );
  }
  return key;
}

/**
 * A rough upper bound on a text secret's entropy: its length times log2 of the character classes it draws from
 * (a 64-character hex string ≈ 256 bits, 43 base64 characters ≈ 256 bits). Text of fewer than 10 distinct
 * characters ("aaaa…", "abab…") is not random whatever its length, and scores 0.
 */
export function entropyBits(text: string): number {
  if (new Set(text).size < 10) return 0;
  const classes = [/[0-9]/, /[a-f]/, /[g-z]/, /[A-Z]/, /[^0-9a-zA-Z]/];
  const sizes = [10, 6, 20, 26, 33];
  const pool = classes.reduce((sum, re, i) => sum + (re.test(text) ? sizes[i]! : 0), 0);
  return text.length * Math.log2(pool);
}

const MIN_SECRET_BITS = 256;

function requireStrongSecrets(postbackSecret: string, secretsKeyText: string): void {
  if (entropyBits(postbackSecret) < MIN_SECRET_BITS) {
    throw new ConfigError(
      'POSTBACK_SECRET must carry at least 32 bytes of entropy in production (e.g. `openssl rand -base64 32`)',
    );
  }
  const key = Buffer.from(secretsKeyText, 'base64');
  if (key.length === 32 && new Set(key).size < 16) {
    throw new ConfigError(
      'SECRETS_KEY must be 32 random bytes in production (e.g. `openssl rand -base64 32`)',
    );
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
 */
export function loadConfig(env: Env = process.env, options: { secrets?: boolean } = {}): Config {
  const withSecrets = options.secrets ?? true;
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
  if (production && withSecrets && !env.POSTBACK_SECRET) {
    throw new ConfigError('POSTBACK_SECRET is required in production');
  }
  if (production && withSecrets && !env.SECRETS_KEY)
    throw new ConfigError('SECRETS_KEY is required in production');
  if (production && withSecrets) requireStrongSecrets(env.POSTBACK_SECRET!, env.SECRETS_KEY!);
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
    logLevel: choice(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    port,
    workerPort: env.WORKER_PORT ? integer(env, 'WORKER_PORT', 0, 1, 65535) : null,
    host,
    databaseUrl,
    dataDir,
    production,
    sandbox,
    trustProxy: trustProxy(env),
    postbackSecret: withSecrets ? env.POSTBACK_SECRET || devSecret(dataDir, 'dev-postback-secret', 32) : '',
    secretsKey: withSecrets
      ? secretsKey(env.SECRETS_KEY || devSecret(dataDir, 'dev-secrets-key', 32))
      : Buffer.alloc(0),
    metricsToken: env.METRICS_TOKEN || undefined,
    redisUrl,
    rateLimitPerKey: integer(env, 'RATE_LIMIT_PER_KEY', 100, 0, 1_000_000),
    rateLimitLoginPerIp: integer(env, 'RATE_LIMIT_LOGIN_PER_IP', 20, 0, 1_000_000),
    webhookAllowPrivate: allowPrivate,
    webhookRetryDelaysMs: retryDelays(env),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10000, 1, 600000),
    webhookDisableAfterFailures: integer(env, 'WEBHOOK_DISABLE_AFTER_FAILURES', 50, 1, 100_000),
    webhookDisableAfterHours: integer(env, 'WEBHOOK_DISABLE_AFTER_HOURS', 72, 0, 8760),
    webhookHealthCheckMs: integer(env, 'WEBHOOK_HEALTH_CHECK_SECONDS', 60, 1, 86400) * 1000,
    ...slowClientLimits(env),
  };
}
