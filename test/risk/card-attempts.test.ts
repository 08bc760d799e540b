/**
 * Card testing's first line (decisions.md, Risk): tokenizations counted per source address
 * (RISK_CARD_ATTEMPTS_PER_IP a minute) and per card fingerprint (RISK_CARD_ATTEMPTS_PER_CARD an hour), on the
 * public-key route and the payer's route alike; past either → 429 RATE_LIMITED (shape D) with Retry-After,
 * and the card never reaches the acquirer. The fingerprint is an HMAC under the deployment's key: never the number.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardFingerprint } from '../../src/cards/index.js';
import { cardBody, cardNumber } from '../cards/cards.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let merchant: TestMerchant;

beforeAll(async () => {
  server = await startServer({
    workers: false,
    env: {
      RISK_CARD_ATTEMPTS_PER_IP: '10',
      RISK_CARD_ATTEMPTS_PER_CARD: '5',
      TRUST_PROXY: '127.0.0.1,::1,::ffff:127.0.0.1',
    },
  });
  merchant = await createMerchant(server);
});
afterAll(() => server?.close());

const tokenize = (number: string, ip: string) =>
  call<{ error?: string; token?: string }>('POST', `${server.url}/api/cards/tokens`, {
    headers: { 'x-api-public-key': merchant.publicKey, 'x-forwarded-for': ip },
    body: cardBody(number),
  });
const tokens = async () =>
  (await server.runtime.platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM card_tokens'))[0]!.n;

describe('card attempts', () => {
  it('lets 10 cards a minute through from one address, then 429 with Retry-After; another address still pays', async () => {
    const before = await tokens();
    const answers = [];
    for (let i = 0; i < 14; i++) answers.push(await tokenize(cardNumber('4'), '203.0.113.7'));
    expect(answers.slice(0, 10).map((a) => a.status)).toEqual(Array(10).fill(201));
    for (const refused of answers.slice(10)) {
      expect(refused.status).toBe(429);
      expect(refused.body.error).toBe('RATE_LIMITED');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(await tokens()).toBe(before + 10);
    expect((await tokenize(cardNumber('4'), '198.51.100.20')).status).toBe(201);
  });

  it('lets one card be tried 5 times an hour, from any addresses, then 429', async () => {
    const number = cardNumber('4');
    const statuses = [];
    for (let i = 0; i < 7; i++) statuses.push((await tokenize(number, `192.0.2.${10 + i}`)).status);
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429, 429]);
  });

  it('counts by a keyed fingerprint of the digits only, never the number', () => {
    const key = server.runtime.platform.config.secretsKey;
    const a = cardFingerprint(key, '4111 1111 1111 1111');
    expect(a).toBe(cardFingerprint(key, '4111-1111-1111-1111'));
    // a keyed hash: 64 hex digits, never the number (a 4-digit run such as 4111 appears in ~0.1 % of random ones)
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(a).not.toContain('4111111111111111');
    expect(a).not.toContain('1111111111');
    expect(a).not.toBe(cardFingerprint(Buffer.alloc(32, 1), '4111111111111111'));
  });
});
