/**
 * The public key lives in payers' browsers: what it alone opens (card tokenization) has a budget of its own,
 * per public key and per source address, and spending it does not touch the pair's server budget.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config/config.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call, type Response } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
const tokens = () => `${server.url}/api/cards/tokens`;
const publicOnly = (m: TestMerchant) => ({ 'x-api-public-key': m.publicKey });
/** Junk: a body the route refuses with 400 once the key is admitted. */
const junk = { number: 'x' };

beforeAll(async () => {
  server = await startServer({
    workers: false,
    env: {
      RATE_LIMIT_PER_KEY: '10',
      RATE_LIMIT_PUBLIC_KEY: '5',
      RATE_LIMIT_PUBLIC_KEY_PER_IP: '3',
    },
  });
});
afterAll(() => server?.close());

function expectPublicLimit(res: Response, limit: string) {
  expect(res.status, res.text).toBe(429);
  expect(res.body).toEqual({ error: 'RATE_LIMITED', message: expect.stringMatching(/^Too many requests/) });
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(res.headers['ratelimit-limit']).toBe(limit);
}

describe('the public key’s own budget', () => {
  it('has settings: 20 a second per public key, 30 a minute per address; 0 turns each off', () => {
    const base = { NODE_ENV: 'test', DATA_DIR: '/tmp/gw-limit-config', DATABASE_URL: 'postgres://x/y' };
    expect(loadConfig(base)).toMatchObject({ rateLimitPublicKey: 20, rateLimitPublicKeyPerIp: 30 });
    expect(
      loadConfig({ ...base, RATE_LIMIT_PUBLIC_KEY: '0', RATE_LIMIT_PUBLIC_KEY_PER_IP: '0' }),
    ).toMatchObject({ rateLimitPublicKey: 0, rateLimitPublicKeyPerIp: 0 });
  });

  it('a flood of junk tokenizations with the public key leaves the pair’s server calls unrefused', async () => {
    const merchant = await createMerchant(server);
    const statuses = new Map<number, number>();
    const until = Date.now() + 3000;
    let n = 0;
    // from many addresses, so that it is the key's budget the flood runs into
    const flood = Array.from({ length: 16 }, async () => {
      while (Date.now() < until) {
        const i = n++;
        const res = await call('POST', tokens(), {
          headers: publicOnly(merchant),
          body: junk,
          localAddress: `127.0.${1 + ((i >> 8) % 50)}.${1 + (i % 250)}`,
        });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    });
    // the merchant's server, within its own limit (10 a second): 20 calls over the flood's 3 s
    const server20: number[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await call('GET', `${server.url}/api/public/balance`, { headers: merchant.keys });
      server20.push(res.status);
      await new Promise((r) => setTimeout(r, 140));
    }
    await Promise.all(flood);
    console.log(
      `public-key flood: ${n} junk tokenizations in 3 s (${[...statuses].map(([s, c]) => `${c}×${s}`).join(', ')}); server calls ${server20.filter((s) => s === 200).length}/20 answered 200`,
    );
    expect(statuses.get(429) ?? 0).toBeGreaterThan(0);
    expect(server20).toEqual(Array(20).fill(200));
    // a server call carrying both keys on the tokenization route counts against the server budget too
    const both = await call('POST', tokens(), { headers: merchant.keys, body: junk });
    expect(both.status, both.text).toBe(400);
  });

  it('answers 429 shape D with Retry-After past the public key’s budget (5 a second here)', async () => {
    const merchant = await createMerchant(server);
    const answers: Response[] = [];
    for (let i = 0; i < 8; i++) {
      answers.push(
        await call('POST', tokens(), {
          headers: publicOnly(merchant),
          body: junk,
          localAddress: `127.0.60.${i + 1}`,
        }),
      );
    }
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400, 400, 429, 429, 429]);
    expectPublicLimit(answers[5]!, '5');
    // another merchant's public key has its own budget
    const other = await createMerchant(server);
    const elsewhere = await call('POST', tokens(), {
      headers: publicOnly(other),
      body: junk,
      localAddress: '127.0.60.9',
    });
    expect(elsewhere.status).toBe(400);
  });

  it('answers 429 past the address’s budget (3 a minute here), junk keys counted too', async () => {
    const merchant = await createMerchant(server);
    const from = (localAddress: string, headers: Record<string, string>) =>
      call('POST', tokens(), { headers, body: junk, localAddress });
    const one = [];
    for (let i = 0; i < 4; i++) one.push(await from('127.0.70.1', publicOnly(merchant)));
    expect(one.map((a) => a.status)).toEqual([400, 400, 400, 429]);
    expectPublicLimit(one[3]!, '3');
    // unknown keys spend the address's budget as well (401 until it is spent)
    const unknown = [];
    for (let i = 0; i < 4; i++) {
      unknown.push(await from('127.0.70.2', { 'x-api-public-key': `pk_unknown${i}` }));
    }
    expect(unknown.map((a) => a.status)).toEqual([401, 401, 401, 429]);
    // another address has its own; the pair's server calls from the spent address are served
    expect((await from('127.0.70.3', publicOnly(merchant))).status).toBe(400);
    const serverCall = await call('GET', `${server.url}/api/public/balance`, {
      headers: merchant.keys,
      localAddress: '127.0.70.1',
    });
    expect(serverCall.status).toBe(200);
  });
});
