import { readFileSync } from 'node:fs';
import { accountIdSetting, ConfigError, type Env, integer } from './parse.js';

// The payment rails' settings: who opens PIX charges, who sends withdrawals, and the PSP's credentials.

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
  /**
   * PIX_AUTOMATICO_CONTA, PIX_AUTOMATICO_TIPO_CONTA, PIX_AUTOMATICO_AGENCIA: the receiver's account at the PSP,
   * which each recurring charge (`cobr`) names; unset: no cycle is scheduled (PIX subscriptions get charges with
   * due date instead).
   */
  recurringAccount: RecurringAccount | null;
}

/** The standard's DadosBancariosRecebedor. */
export interface RecurringAccount {
  conta: string;
  tipoConta: 'CORRENTE' | 'POUPANCA' | 'PAGAMENTO';
  agencia?: string;
}

const ACCOUNT_TYPES = ['CORRENTE', 'POUPANCA', 'PAGAMENTO'] as const;

function recurringAccount(env: Env): RecurringAccount | null {
  const conta = env.PIX_AUTOMATICO_CONTA;
  if (!conta) return null;
  if (!/^\d{1,20}$/.test(conta)) throw new ConfigError('PIX_AUTOMATICO_CONTA must be 1 to 20 digits');
  const tipoConta = (env.PIX_AUTOMATICO_TIPO_CONTA || 'CORRENTE') as RecurringAccount['tipoConta'];
  if (!ACCOUNT_TYPES.includes(tipoConta)) {
    throw new ConfigError(`PIX_AUTOMATICO_TIPO_CONTA must be one of ${ACCOUNT_TYPES.join(', ')}`);
  }
  const agencia = env.PIX_AUTOMATICO_AGENCIA;
  if (agencia && !/^\d{1,4}$/.test(agencia))
    throw new ConfigError('PIX_AUTOMATICO_AGENCIA must be 1 to 4 digits');
  return { conta, tipoConta, ...(agencia ? { agencia } : {}) };
}
export type PixProcessorName = (typeof PIX_PROCESSORS)[number];

export function efiSettings(env: Env, publicUrl: string): EfiSettings {
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

export function bcbSettings(env: Env, publicUrl: string): BcbSettings {
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
    recurringAccount: recurringAccount(env),
  };
}

/**
 * The gateway's public origin (decisions.md: default `http://localhost:$PORT`). In production with a real PSP
 * it must be given: the PSP's webhooks are registered under it, and no PSP reaches a localhost.
 */
export function publicUrlSetting(env: Env, port: number, required: boolean): string {
  const raw = env.PUBLIC_URL;
  if (!raw) {
    if (required)
      throw new ConfigError('PUBLIC_URL is required in production with a PSP (its webhooks call it)');
    return `http://localhost:${port}`;
  }
  if (!/^https?:\/\/\S+$/.test(raw) || !URL.canParse(raw)) {
    throw new ConfigError(`PUBLIC_URL must be an http(s):// URL, got "${raw}"`);
  }
  // an origin: the panel, the payer pages and the PSP's webhook routes live at its root, so a path would lead
  // every link it makes astray (a trailing slash is the root)
  const url = new URL(raw);
  if (
    url.pathname !== '/' ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== '' ||
    url.password !== ''
  ) {
    throw new ConfigError(
      `PUBLIC_URL must be the gateway's origin (scheme, host and port only: no path, query, fragment or user), got "${raw}"`,
    );
  }
  return raw.replace(/\/+$/, '');
}
