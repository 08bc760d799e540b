import { readFileSync } from 'node:fs';
import { ConfigError, choice, type Env, integer } from './parse.js';

// The card acquirer: who turns a card into a token (and, later, charges it).

export const CARD_ACQUIRERS = ['sandbox', 'cielo'] as const;
export type CardAcquirerName = (typeof CARD_ACQUIRERS)[number];

/** CARD_ACQUIRER=cielo: Cielo's e-commerce API 3.0 (transactions at CIELO_API_URL, queries at CIELO_QUERY_URL). */
export interface CieloSettings {
  merchantId: string;
  merchantKey: string;
  apiUrl: string;
  queryUrl: string;
  timeoutMs: number;
  /**
   * CIELO_NOTIFICATION_SECRET: the value of the header Cielo is asked to send with its notification POST
   * (`X-Notification-Secret`); unset, a notice is taken without it (it is only a hint to read back anyway).
   */
  notificationSecret: string | null;
  /** CIELO_CA_FILE: the only CA trusted for Cielo's TLS (the local fake's); null: the system's roots. */
  ca: string | null;
}

export interface CardSettings {
  acquirer: CardAcquirerName;
  cielo: CieloSettings | null;
  /** CARD_SETTLEMENT_DAYS: installment n of a captured card sale reaches available n × this many days later. */
  settlementDays: number;
}

export function cardSettings(env: Env, production: boolean): CardSettings {
  const acquirer = choice(env, 'CARD_ACQUIRER', CARD_ACQUIRERS, 'sandbox');
  return {
    acquirer,
    cielo: acquirer === 'cielo' ? cieloSettings(env, production) : null,
    settlementDays: integer(env, 'CARD_SETTLEMENT_DAYS', 30, 1, 365),
  };
}

function cieloSettings(env: Env, production: boolean): CieloSettings {
  const names = ['CIELO_MERCHANT_ID', 'CIELO_MERCHANT_KEY', 'CIELO_API_URL', 'CIELO_QUERY_URL'];
  const missing = names.filter((n) => !env[n]);
  if (missing.length > 0) throw new ConfigError(`CARD_ACQUIRER=cielo needs ${missing.join(', ')}`);
  // card data goes to the acquirer over TLS only (the local fake, `gateway dev-acquirer`, serves HTTPS too)
  for (const n of ['CIELO_API_URL', 'CIELO_QUERY_URL']) {
    if (!/^https:\/\/\S+$/.test(env[n]!) || !URL.canParse(env[n]!)) {
      throw new ConfigError(`${n} must be an https:// URL`);
    }
  }
  let ca: string | null = null;
  if (env.CIELO_CA_FILE) {
    if (production)
      throw new ConfigError('CIELO_CA_FILE is for the local acquirer: Cielo is trusted by the system');
    try {
      ca = readFileSync(env.CIELO_CA_FILE, 'utf8');
    } catch (err) {
      throw new ConfigError(`CIELO_CA_FILE cannot be read: ${(err as Error).message}`);
    }
  }
  return {
    merchantId: env.CIELO_MERCHANT_ID!,
    merchantKey: env.CIELO_MERCHANT_KEY!,
    apiUrl: env.CIELO_API_URL!.replace(/\/+$/, ''),
    queryUrl: env.CIELO_QUERY_URL!.replace(/\/+$/, ''),
    timeoutMs: integer(env, 'CIELO_TIMEOUT_MS', 15_000, 100, 120_000),
    notificationSecret: env.CIELO_NOTIFICATION_SECRET || null,
    ca,
  };
}
