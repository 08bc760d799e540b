/**
 * Limits per account (docs/security.md): at most 20 live API key pairs; a request limit over all of an
 * account's keys together, shared by every process through Redis; at most RATE_LIMIT_WEBHOOK_TEST test
 * deliveries per webhook a minute.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config/config.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { createWebhook } from '../support/webhooks.js';

// each test's servers closed after it: several servers' pools at once run the database out of connections
const open: TestServer[] = [];
afterEach(async () => {
  for (const s of open.splice(0).reverse()) await s.close();
});
async function server(env: Record<string, string> = {}, databaseUrl?: string): Promise<TestServer> {
  const s = await startServer({ env, databaseUrl, workers: false });
  open.push(s);
  return s;
}

interface Issued {
  id: number;
  publicKey: string;
  privateKey: string;
}
const issue = (s: TestServer, m: TestMerchant, body: unknown = {}) =>
  call<Issued>('POST', `${s.url}/api/credentials`, { headers: m.panel, body });
const keysOf = (k: Issued) => ({ 'x-api-public-key': k.publicKey, 'x-api-private-key': k.privateKey });

describe('live API key pairs per account (20)', () => {
  it('creates exactly up to 20 of 25 sent at once; the rest 409 shape A TOO_MANY_KEYS; a revoked or expired pair frees a place', async () => {
    const s = await server();
    const m = await createMerchant(s); // holds one pair already
    const results = await Promise.all(Array.from({ length: 25 }, () => issue(s, m)));
    const created = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 409);
    expect(created).toHaveLength(19);
    expect(refused).toHaveLength(6);
    expect(refused[0]!.body).toEqual({
      success: false,
      error: {
        code: 'TOO_MANY_KEYS',
        message: 'An account can have at most 20 active API key pairs; revoke one first',
      },
    });
    const list = await call<unknown[]>('GET', `${s.url}/api/credentials`, { headers: m.panel });
    expect(list.body).toHaveLength(20);

    // revoking one frees its place
    const del = await call('DELETE', `${s.url}/api/credentials/${created[0]!.body.id}`, { headers: m.panel });
    expect(del.status).toBe(204);
    expect((await issue(s, m)).status).toBe(201);
    expect((await issue(s, m)).status).toBe(409);

    // so does one past its expiry
    await s.runtime.platform.db.query(
      `UPDATE api_credentials SET expires_at = now() - interval '1 second' WHERE id = $1`,
      [created[1]!.body.id],
    );
    expect((await issue(s, m)).status).toBe(201);
    expect((await issue(s, m)).status).toBe(409);

    // at the cap, a roll with a grace would keep both pairs live: refused; with graceHours 0 the count stays
    const target = created[2]!.body.id;
    const roll = (graceHours: number) =>
      call('POST', `${s.url}/api/credentials/${target}/roll`, { headers: m.panel, body: { graceHours } });
    const withGrace = await roll(24);
    expect(withGrace.status).toBe(409);
    expect(withGrace.body).toMatchObject({ success: false, error: { code: 'TOO_MANY_KEYS' } });
    expect((await roll(0)).status).toBe(201);
    expect((await issue(s, m)).status).toBe(409);

    // another account is not affected
    const other = await createMerchant(s);
    expect((await issue(s, other)).status).toBe(201);
  });
});

describe('requests per account (RATE_LIMIT_PER_ACCOUNT a second, all its keys together)', () => {
  it('defaults to 3 × RATE_LIMIT_PER_KEY; 0 turns it off', () => {
    const base = { NODE_ENV: 'test', DATA_DIR: '/tmp/gw-config-check', DATABASE_URL: 'postgres://x/y' };
    expect(loadConfig({ ...base }).rateLimitPerAccount).toBe(300);
    expect(loadConfig({ ...base, RATE_LIMIT_PER_KEY: '7' }).rateLimitPerAccount).toBe(21);
    expect(loadConfig({ ...base, RATE_LIMIT_PER_ACCOUNT: '0' }).rateLimitPerAccount).toBe(0);
    expect(loadConfig({ ...base }).rateLimitWebhookTest).toBe(10);
  });

  it('answers 429 in the route’s shape once the account’s keys together pass it, counted across two processes through Redis', async () => {
    const env = {
      RATE_LIMIT_PER_KEY: '5',
      RATE_LIMIT_PER_ACCOUNT: '8',
      REDIS_URL: 'redis://127.0.0.1:6379',
    };
    const first = await server(env);
    const second = await server(env, first.databaseUrl);
    const m = await createMerchant(first);
    const other = await createMerchant(first);
    const more = await Promise.all([issue(first, m), issue(first, m), issue(first, m)]);
    const keys = [m.keys, ...more.map((r) => keysOf(r.body))];
    // 4 keys × 4 requests: no key passes its own 5, the account passes its 8; half through each process
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        call('GET', `${(i % 2 ? second : first).url}/api/public/balance`, { headers: keys[i % 4]! }),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok.length).toBeLessThanOrEqual(8);
    expect(limited.length).toBeGreaterThanOrEqual(8);
    expect(ok.length + limited.length).toBe(16);
    const r = limited[0]!;
    expect(r.body).toEqual({ error: 'RATE_LIMITED', message: expect.stringMatching(/^Too many requests/) }); // shape E
    expect(r.headers['ratelimit-limit']).toBe('8');
    expect(r.headers['ratelimit-remaining']).toBe('0');
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    // the cashout route answers it in its shape D
    const cashout = await call('POST', `${second.url}/api/public/cashout`, {
      headers: keys[3]!,
      body: { amount: 150, pixKey: '52998224725' },
    });
    expect(cashout.status).toBe(429);
    expect(cashout.body).toEqual({ message: expect.any(String), error: 'RATE_LIMITED' });
    // another account is not affected
    expect((await call('GET', `${first.url}/api/public/balance`, { headers: other.keys })).status).toBe(200);
    // the next second, the account is served again
    await new Promise((res) => setTimeout(res, 1100));
    const again = await call('GET', `${second.url}/api/public/balance`, { headers: keys[1]! });
    expect(again.status).toBe(200);
  });

  it('counts against the account only what the key’s own limit let through: a runaway key leaves its siblings served, and its 429s carry the key’s limit', async () => {
    const s = await server({ RATE_LIMIT_PER_KEY: '5' }); // the account's: 15
    const m = await createMerchant(s);
    const sibling = keysOf((await issue(s, m)).body);
    const balance = (keys: Record<string, string>) =>
      call('GET', `${s.url}/api/public/balance`, { headers: keys });
    const refusals: Record<string, string>[] = [];
    for (let round = 0; round < 3; round++) {
      const burst = await Promise.all(Array.from({ length: 20 }, () => balance(m.keys)));
      const cashout = await call('POST', `${s.url}/api/public/cashout`, {
        headers: m.keys,
        body: { amount: 150, pixKey: '52998224725' },
      });
      const siblings = await Promise.all([balance(sibling), balance(sibling), balance(sibling)]);
      expect(siblings.map((r) => r.status)).toEqual([200, 200, 200]);
      for (const r of [...burst, cashout]) {
        if (r.status === 429) refusals.push(r.headers as Record<string, string>);
      }
      if (cashout.status === 429) {
        expect(cashout.body).toEqual({ message: expect.any(String), error: 'RATE_LIMITED' });
        expect(cashout.headers['ratelimit-limit']).toBe('5');
      }
      await new Promise((res) => setTimeout(res, 1100));
    }
    expect(refusals.length).toBeGreaterThanOrEqual(3 * 10);
    for (const h of refusals) {
      expect(h['ratelimit-limit']).toBe('5');
      expect(h['ratelimit-remaining']).toBe('0');
      expect(Number(h['retry-after'])).toBeGreaterThanOrEqual(0);
    }
  });

  it('reports the tighter of the two limits in RateLimit-* when both pass', async () => {
    const s = await server({ RATE_LIMIT_PER_KEY: '5', RATE_LIMIT_PER_ACCOUNT: '50' });
    const m = await createMerchant(s);
    const r = await call('GET', `${s.url}/api/public/balance`, { headers: m.keys });
    expect(r.status).toBe(200);
    expect(r.headers['ratelimit-limit']).toBe('5');
    expect(r.headers['ratelimit-remaining']).toBe('4');
  });
});

describe('test deliveries per webhook (RATE_LIMIT_WEBHOOK_TEST a minute)', () => {
  it('sends 10 of 14 asked at once on two processes, 429 shape A for the rest; another webhook and another account’s guesses are apart', async () => {
    const env = { RATE_LIMIT_WEBHOOK_TEST: '10', REDIS_URL: 'redis://127.0.0.1:6379' };
    const first = await server(env);
    const second = await server(env, first.databaseUrl);
    const m = await createMerchant(first);
    const stranger = await createMerchant(first);
    const hook = await createWebhook(first, m, 'http://127.0.0.1:9/hook');
    const otherHook = await createWebhook(first, m, 'http://127.0.0.1:9/other');
    const test = (s: TestServer, who: TestMerchant, id: number) =>
      call('POST', `${s.url}/api/webhook/${id}/test`, { headers: who.panel });

    // another account's requests for this webhook are 404 and spend nothing of its budget
    for (let i = 0; i < 5; i++) expect((await test(first, stranger, hook.id)).status).toBe(404);

    const results = await Promise.all(
      Array.from({ length: 14 }, (_, i) => test(i % 2 ? second : first, m, hook.id)),
    );
    const sent = results.filter((r) => r.status === 202);
    const limited = results.filter((r) => r.status === 429);
    expect(sent).toHaveLength(10);
    expect(limited).toHaveLength(4);
    expect(limited[0]!.body).toEqual({
      success: false,
      error: { code: 'RATE_LIMITED', message: expect.stringMatching(/^Too many requests/) },
    });
    expect(Number(limited[0]!.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited[0]!.headers['ratelimit-limit']).toBe('10');
    const [{ n }] = await first.runtime.platform.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM notification_deliveries WHERE webhook_id = $1`,
      [hook.id],
    );
    expect(n).toBe(10); // a refused test logged no delivery
    expect((await test(second, m, otherHook.id)).status).toBe(202);
  });
});
