import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config/config.js';
import { ConfigError } from '../../src/platform/config/parse.js';

const base = { NODE_ENV: 'test', DATA_DIR: '/tmp/gw-cards-settings' };
const cielo = {
  CARD_ACQUIRER: 'cielo',
  CIELO_MERCHANT_ID: 'b9d5a2a0-7b8e-4a55-9e35-0c3c8a1f3e11',
  CIELO_MERCHANT_KEY: 'key',
  CIELO_API_URL: 'https://apisandbox.cieloecommerce.cielo.com.br/',
  CIELO_QUERY_URL: 'https://apiquerysandbox.cieloecommerce.cielo.com.br',
};

describe('CARD_ACQUIRER and CIELO_*', () => {
  it('defaults to the sandbox acquirer', () => {
    expect(loadConfig(base).cards).toEqual({ acquirer: 'sandbox', cielo: null, settlementDays: 30 });
  });

  it('cielo with its settings; without one of them, or with a bad URL, the process does not start', () => {
    expect(loadConfig({ ...base, ...cielo }).cards.cielo).toMatchObject({
      apiUrl: 'https://apisandbox.cieloecommerce.cielo.com.br',
      timeoutMs: 15000,
      notificationSecret: null,
    });
    expect(
      loadConfig({ ...base, ...cielo, CIELO_NOTIFICATION_SECRET: 'header-value' }).cards.cielo
        ?.notificationSecret,
    ).toBe('header-value');
    expect(() => loadConfig({ ...base, ...cielo, CIELO_MERCHANT_KEY: '' })).toThrow(
      new ConfigError('CARD_ACQUIRER=cielo needs CIELO_MERCHANT_KEY'),
    );
    expect(() => loadConfig({ ...base, CARD_ACQUIRER: 'cielo' })).toThrow(
      /needs CIELO_MERCHANT_ID, CIELO_MERCHANT_KEY, CIELO_API_URL, CIELO_QUERY_URL/,
    );
    expect(() => loadConfig({ ...base, ...cielo, CIELO_API_URL: 'ftp://x' })).toThrow(
      /CIELO_API_URL must be/,
    );
    // card data travels over TLS only, to the local acquirer too
    expect(() => loadConfig({ ...base, ...cielo, CIELO_API_URL: 'http://127.0.0.1:8444' })).toThrow(
      /CIELO_API_URL must be an https:\/\/ URL/,
    );
    expect(() => loadConfig({ ...base, ...cielo, CIELO_CA_FILE: '/nonexistent/ca.pem' })).toThrow(
      /CIELO_CA_FILE cannot be read/,
    );
    expect(() => loadConfig({ ...base, CARD_ACQUIRER: 'rede' })).toThrow(/CARD_ACQUIRER must be one of/);
  });

  it('CARD_SETTLEMENT_DAYS: 30 by default, 1 to 365', () => {
    expect(loadConfig({ ...base, CARD_SETTLEMENT_DAYS: '2' }).cards.settlementDays).toBe(2);
    expect(() => loadConfig({ ...base, CARD_SETTLEMENT_DAYS: '0' })).toThrow(/CARD_SETTLEMENT_DAYS/);
    expect(() => loadConfig({ ...base, CARD_SETTLEMENT_DAYS: 'x' })).toThrow(/CARD_SETTLEMENT_DAYS/);
  });

  it('in production Cielo is spoken over TLS only', () => {
    const production = {
      ...base,
      NODE_ENV: 'production',
      POSTBACK_SECRET: randomBytes(32).toString('base64'),
      SECRETS_KEY: randomBytes(32).toString('base64'),
      SANDBOX: 'off',
    };
    expect(() => loadConfig({ ...production, ...cielo, CIELO_API_URL: 'http://127.0.0.1:8444' })).toThrow(
      /CIELO_API_URL must be an https:\/\/ URL/,
    );
  });
});
