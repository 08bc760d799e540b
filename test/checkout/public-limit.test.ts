import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config/config.js';
import { ipBucket } from '../../src/platform/net/ip.js';
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

describe('the hosted pages past the limit', () => {
  it("show the payer a pt-BR page saying to wait (429, Retry-After), not the API's JSON", async () => {
    const link = await createLink(server, merchant);
    const page = (path: string) => call('GET', `${server.url}${path}`, { localAddress: '127.0.0.4' });
    for (let i = 0; i < 4; i++) expect((await page(`/pay/${link.slug}`)).status).toBe(200);
    const limited = await page(`/pay/${link.slug}`);
    expect(limited.status).toBe(429);
    expect(limited.headers['content-type']).toMatch(/^text\/html/);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.text).toContain('<title>Muitas tentativas em pouco tempo</title>');
    expect(limited.text).toMatch(/Espere \d+ segundos? e abra esta página de novo\. Nada foi cobrado\./);
    expect(limited.text).not.toContain('RATE_LIMITED');
    const session = await page('/checkout/00000000-0000-4000-8000-000000000000');
    expect(session.status).toBe(429);
    expect(session.text).toContain('Muitas tentativas em pouco tempo');
    // the subscriber's page is counted alike, and says it alike
    const billing = await page('/billing/no-such-token');
    expect(billing.status).toBe(429);
    expect(billing.headers['content-type']).toMatch(/^text\/html/);
    expect(billing.text).toContain('<title>Muitas tentativas em pouco tempo</title>');
  });
});

describe('per-address limits count IPv6 by /64', () => {
  it('four addresses of one /64 share a budget; another /64 has its own', async () => {
    const proxied = await startServer({
      workers: false,
      env: { RATE_LIMIT_CHECKOUT_PER_IP: '4', TRUST_PROXY: '127.0.0.1,::1' },
    });
    try {
      const owner = await createMerchant(proxied);
      const link = await createLink(proxied, owner);
      const from = (ip: string) =>
        call('GET', `${proxied.url}/api/public/pay/${link.slug}`, { headers: { 'x-forwarded-for': ip } });
      const same = ['2001:db8:1:2::a', '2001:db8:1:2:ffff::1', '2001:db8:1:2:1:2:3:4', '2001:DB8:1:2::b'];
      expect((await Promise.all(same.map(from))).map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect((await from('2001:db8:1:2:dead:beef:0:1')).status).toBe(429);
      expect((await from('2001:db8:1:3::1')).status).toBe(200);
      expect((await from('203.0.113.7')).status).toBe(200);
    } finally {
      await proxied.close();
    }
  });

  it('ipBucket: IPv4 as itself (mapped ones too), IPv6 by its /64', () => {
    expect(ipBucket('203.0.113.7')).toBe('203.0.113.7');
    expect(ipBucket('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(ipBucket('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(ipBucket('2001:DB8:0001:0002::')).toBe('2001:db8:1:2::/64');
    expect(ipBucket('::1')).toBe('::/64');
    expect(ipBucket('junk')).toBe('junk');
  });
});
