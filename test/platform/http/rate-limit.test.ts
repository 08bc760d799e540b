import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/accounts/accounts.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { type ChildServer, spawnGateway, startServer, type TestServer } from '../../support/server.js';
import { waitUntil } from '../../support/wait.js';

// each test's servers closed after it: ten gateways' pools at once took most of the database's connections
const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function server(env: Record<string, string>, databaseUrl?: string): Promise<TestServer> {
  const s = await startServer({ env, databaseUrl, workers: false });
  open.push(s);
  return s;
}

const balance = (s: { url: string }, m: TestMerchant) =>
  call('GET', `${s.url}/api/public/balance`, { headers: m.keys });

describe('per API key (RATE_LIMIT_PER_KEY a second)', () => {
  it('answers 429 in the route’s shape with Retry-After and RateLimit-*, and counts each key apart', async () => {
    const s = await server({ RATE_LIMIT_PER_KEY: '5' });
    const m = await createMerchant(s);
    const other = await createMerchant(s);
    const results = await Promise.all(Array.from({ length: 12 }, () => balance(s, m)));
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok.length).toBeLessThanOrEqual(5);
    expect(limited.length).toBeGreaterThanOrEqual(7);
    const r = limited[0]!;
    expect(r.body).toEqual({ error: 'RATE_LIMITED', message: expect.stringMatching(/^Too many requests/) }); // shape E
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(r.headers['ratelimit-limit']).toBe('5');
    expect(r.headers['ratelimit-remaining']).toBe('0');
    expect(r.headers['ratelimit-reset']).toBeDefined();
    expect(ok[0]!.headers['ratelimit-limit']).toBe('5');

    const cashout = await call('POST', `${s.url}/api/public/cashout`, {
      headers: m.keys,
      body: { amount: 100, pixKey: '52998224725' },
    });
    expect(cashout.status).toBe(429);
    expect(cashout.body).toEqual({ message: expect.any(String), error: 'RATE_LIMITED' }); // shape D
    // the routes with two doors (a key's or the panel's) count a key as every API-key route does: 429 is in
    // their catalogue (answering a code a route does not list logs a warning, which fails this test)
    const shapeD = { message: expect.any(String), error: 'RATE_LIMITED' };
    const shapeA = { success: false, error: { code: 'RATE_LIMITED', message: expect.any(String) } };
    for (const [method, path, body, shape] of [
      ['POST', '/api/plans', { name: 'Mensal', amountCents: 1000, interval: 'month' }, shapeD],
      ['GET', '/api/plans', undefined, shapeD],
      ['POST', '/api/customers', { name: 'Ana', email: 'ana@example.com' }, shapeD],
      ['GET', '/api/subscriptions', undefined, shapeD],
      ['GET', '/api/events', undefined, shapeA],
    ] as const) {
      const limitedToo = await call(method, `${s.url}${path}`, { headers: m.keys, body });
      expect(limitedToo.status, `${method} ${path}: ${limitedToo.text}`).toBe(429);
      expect(limitedToo.body, `${method} ${path}`).toEqual(shape);
    }
    expect((await balance(s, other)).status).toBe(200); // another key is not affected
    await new Promise((res) => setTimeout(res, 1100));
    expect((await balance(s, m)).status).toBe(200); // the next second
  });

  it('does not count requests whose keys fail authentication against the key', async () => {
    const s = await server({ RATE_LIMIT_PER_KEY: '3' });
    const m = await createMerchant(s);
    const wrong = { ...m.keys, 'x-api-private-key': 'not-the-key' };
    for (let i = 0; i < 10; i++) {
      expect((await call('GET', `${s.url}/api/public/balance`, { headers: wrong })).status).toBe(401);
    }
    expect((await balance(s, m)).status).toBe(200);
  });

  it('counts a read-only key’s refused changes (403) against it, but not requests from outside the allow-list', async () => {
    const s = await server({ RATE_LIMIT_PER_KEY: '4' });
    const m = await createMerchant(s);
    const issued = await call<{ publicKey: string; privateKey: string }>('POST', `${s.url}/api/credentials`, {
      headers: m.panel,
      body: { scope: 'read' },
    });
    const read = {
      'x-api-public-key': issued.body.publicKey,
      'x-api-private-key': issued.body.privateKey,
    };
    const cashout = () =>
      call('POST', `${s.url}/api/public/cashout`, {
        headers: read,
        body: { amount: 100, pixKey: '52998224725' },
      });
    const refused = await Promise.all(Array.from({ length: 8 }, cashout));
    const statuses = refused.map((r) => r.status).sort();
    expect(statuses.filter((x) => x === 403)).toHaveLength(4);
    expect(statuses.filter((x) => x === 429)).toHaveLength(4);
    expect(refused.find((r) => r.status === 429)!.body).toEqual({
      message: expect.any(String),
      error: 'RATE_LIMITED',
    });

    // the allow-list is checked first: a stranger holding the keys cannot spend the merchant's limit
    const ips = await call('PUT', `${s.url}/api/settings/allowed-ips`, {
      headers: m.panel,
      body: { ips: ['127.0.0.1'] },
    });
    expect(ips.status).toBe(200);
    await new Promise((res) => setTimeout(res, 1100));
    for (let i = 0; i < 6; i++) {
      const outside = await call('GET', `${s.url}/api/public/balance`, {
        headers: m.keys,
        localAddress: '127.0.0.2',
      });
      expect(outside.status).toBe(403);
    }
    expect((await balance(s, m)).status).toBe(200);
  });

  it('is off with 0', async () => {
    const s = await server({ RATE_LIMIT_PER_KEY: '0' });
    const m = await createMerchant(s);
    const results = await Promise.all(Array.from({ length: 30 }, () => balance(s, m)));
    expect(results.every((r) => r.status === 200 && r.headers['ratelimit-limit'] === undefined)).toBe(true);
  });
});

describe('login per source IP (RATE_LIMIT_LOGIN_PER_IP a minute)', () => {
  it('answers 429 shape A after the limit, even for the right password', async () => {
    const s = await server({ RATE_LIMIT_LOGIN_PER_IP: '3' });
    await createAccount(s.runtime.platform.db, {
      name: 'L',
      email: 'rl@example.com',
      password: 'right-password',
    });
    for (let i = 0; i < 3; i++) {
      const r = await call('POST', `${s.url}/api/auth/login`, {
        body: { email: `nobody-${i}@example.com`, password: 'x-password' },
      });
      expect(r.status).toBe(401);
    }
    const r = await call('POST', `${s.url}/api/auth/login`, {
      body: { email: 'rl@example.com', password: 'right-password' },
    });
    expect(r.status).toBe(429);
    expect(r.body).toEqual({ success: false, error: { code: 'RATE_LIMITED', message: expect.any(String) } });
    expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
  });

  it("counts the e-mailed links' routes too, each answering a 429 its catalogue lists (a code it does not list is a fault of the log)", async () => {
    const s = await server({ RATE_LIMIT_LOGIN_PER_IP: '3' });
    const doc = (
      await call<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }>(
        'GET',
        `${s.url}/openapi.json`,
      )
    ).body;
    const routes = [
      ['/api/auth/password-reset', { email: 'nobody@example.com' }],
      ['/api/auth/password-reset/confirm', { token: 'x'.repeat(43), password: 'a-new-password' }],
      ['/api/auth/accept-invitation', { token: 'x'.repeat(43), password: 'a-new-password' }],
    ] as const;
    for (const [path, body] of routes) {
      const from = `127.0.0.${20 + routes.findIndex((r) => r[0] === path)}`;
      for (let i = 0; i < 3; i++) await call('POST', `${s.url}${path}`, { body, localAddress: from });
      const r = await call('POST', `${s.url}${path}`, { body, localAddress: from });
      expect(r.status, path).toBe(429);
      expect(r.body, path).toEqual({
        success: false,
        error: { code: 'RATE_LIMITED', message: expect.any(String) },
      });
      expect(JSON.stringify(doc.paths[path]!.post!.responses['429']), path).toContain('RATE_LIMITED');
    }
  });
});

describe('shared through Redis (REDIS_URL)', () => {
  it('counts a key across two server processes', async () => {
    const env = { RATE_LIMIT_PER_KEY: '6', REDIS_URL: 'redis://127.0.0.1:6379' };
    const first = await server(env);
    const second = await server(env, first.databaseUrl);
    const m = await createMerchant(first);
    // 10 through each process at once (at most 6 a second in all, whichever process answers: even a slow
    // machine spreading the burst over two seconds refuses some)
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => balance(i % 2 ? second : first, m)),
    );
    expect(results.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(2);
  });

  it('without Redis each process counts alone', async () => {
    const env = { RATE_LIMIT_PER_KEY: '6' };
    const first = await server(env);
    const second = await server(env, first.databaseUrl);
    const m = await createMerchant(first);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => balance(i % 2 ? second : first, m)),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
  });

  it('keeps serving, and limiting per process, when Redis goes away; a log line says so', async () => {
    const redis = await startRedis();
    let gateway: ChildServer | undefined;
    const s = await server({});
    try {
      gateway = await spawnGateway(['serve', '--no-worker'], {
        DATABASE_URL: s.databaseUrl,
        DATA_DIR: s.env.DATA_DIR!,
        RATE_LIMIT_PER_KEY: '5',
        REDIS_URL: `redis://127.0.0.1:${redis.port}`,
      });
      const m = await createMerchant(s);
      expect((await balance(gateway, m)).status).toBe(200);
      await redis.stop();
      // still served
      expect((await balance(gateway, m)).status).toBe(200);
      await waitUntil(() => /Redis unavailable, counting per process/.test(gateway!.output()), 10_000);
      await new Promise((r) => setTimeout(r, 1100));
      // and still limited, now by this process alone
      const results = await Promise.all(Array.from({ length: 10 }, () => balance(gateway!, m)));
      expect(results.filter((r) => r.status === 200).length).toBeLessThanOrEqual(5);
      expect(results.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(5);
      expect(results.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    } finally {
      await gateway?.stop();
      await redis.stop();
    }
  });
});

/** A Redis server of this test's own on a free port (the machine's shared one is never stopped). */
async function startRedis(): Promise<{ port: number; stop(): Promise<void> }> {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const p = (probe.address() as { port: number }).port;
      probe.close(() => resolve(p));
    });
  });
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', ''],
    {
      stdio: 'ignore',
    },
  );
  await waitUntil(async () => {
    const { Redis } = await import('ioredis');
    const c = new Redis(port, '127.0.0.1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    c.on('error', () => undefined);
    try {
      await c.connect();
      return (await c.ping()) === 'PONG';
    } catch {
      return false;
    } finally {
      c.disconnect();
    }
  }, 10_000);
  return {
    port,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
