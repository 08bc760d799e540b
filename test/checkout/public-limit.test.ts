import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config/config.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { createLink, createSession, PAYER } from './fixtures.js';

let server: TestServer;
let merchant: TestMerchant;

beforeAll(async () => {
  server = await startServer({ workers: false, env: { RATE_LIMIT_CHECKOUT_PER_IP: '4' } });
  merchant = await createMerchant(server);
});
afterAll(() => server?.close());

describe("the payer's routes (RATE_LIMIT_CHECKOUT_PER_IP a minute)", () => {
  it('defaults to 60 a minute; 0 turns it off', () => {
    const base = { NODE_ENV: 'test', DATA_DIR: '/tmp/gw-limit-config', DATABASE_URL: 'postgres://x/y' };
    expect(loadConfig(base).rateLimitCheckoutPerIp).toBe(60);
    expect(loadConfig({ ...base, RATE_LIMIT_CHECKOUT_PER_IP: '0' }).rateLimitCheckoutPerIp).toBe(0);
  });

  it('counts reads and payments of every link and session together per address: 429 shape D with Retry-After', async () => {
    const link = await createLink(server, merchant);
    const session = await createSession(server, merchant);
    const answers = [
      await call('GET', `${server.url}/api/public/pay/${link.slug}`, { localAddress: '127.0.0.2' }),
      await call('POST', `${server.url}/api/public/pay/${link.slug}`, {
        localAddress: '127.0.0.2',
        body: PAYER,
      }),
      await call('GET', `${server.url}/api/public/checkout/${session.id}`, { localAddress: '127.0.0.2' }),
      await call('GET', `${server.url}/api/public/pay/AAAAAAAAAAAAAAAA`, { localAddress: '127.0.0.2' }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 201, 200, 404]);
    const limited = await call('POST', `${server.url}/api/public/checkout/${session.id}`, {
      localAddress: '127.0.0.2',
      body: PAYER,
    });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      error: 'RATE_LIMITED',
      message: expect.stringMatching(/^Too many requests/),
    });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.headers['ratelimit-limit']).toBe('4');
    // another address has its own count; the merchant's API is not limited by it
    const elsewhere = await call('GET', `${server.url}/api/public/pay/${link.slug}`, {
      localAddress: '127.0.0.3',
    });
    expect(elsewhere.status).toBe(200);
    const api = await call('GET', `${server.url}/api/payment-links/${link.id}`, {
      headers: merchant.keys,
      localAddress: '127.0.0.2',
    });
    expect(api.status).toBe(200);
  });
});
