import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.js';
import { createMerchant, login, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { freshDatabase } from '../support/pg.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let merchant: TestMerchant;

const SHAPE_A = (code: string) => ({ success: false, error: { code, message: expect.any(String) } });

async function newAccount(s: TestServer = server) {
  const email = `s-${randomBytes(6).toString('hex')}@example.com`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const account = await createAccount(s.runtime.platform.db, { name: 'Session Owner', email, password });
  return { ...account, password };
}

beforeAll(async () => {
  server = await startServer();
  merchant = await createMerchant(server);
});
afterAll(() => server?.close());

describe('POST /api/auth/login', () => {
  it('answers the user and a CSRF token, with an HttpOnly SameSite=Lax cookie (not Secure outside production)', async () => {
    const a = await newAccount();
    const res = await call<{ user: unknown; csrfToken: string }>('POST', `${server.url}/api/auth/login`, {
      body: { email: a.email.toUpperCase(), password: a.password },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      user: {
        id: a.id,
        name: 'Session Owner',
        email: a.email,
        role: 'owner',
        totpEnabled: false,
        permissions: [
          'self',
          'money.view',
          'withdrawals.create',
          'sales.create',
          'disputes.respond',
          'integrations',
          'team',
          'audit',
        ],
      },
      csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{32,}$/),
    });
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/^gw_session=[A-Za-z0-9_-]{40,};/);
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; SameSite=Lax/i);
    expect(cookie).toMatch(/; Path=\//i);
    expect(cookie).not.toMatch(/; Secure/i);
  });

  it('401 shape A for a wrong password and for an unknown email, with the same message', async () => {
    const a = await newAccount();
    const wrong = await call('POST', `${server.url}/api/auth/login`, {
      body: { email: a.email, password: 'not-the-password' },
    });
    const unknown = await call('POST', `${server.url}/api/auth/login`, {
      body: { email: `nobody-${a.id}@example.com`, password: 'whatever-password' },
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(SHAPE_A('UNAUTHORIZED'));
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.headers['set-cookie']).toBeUndefined();
  });

  it('400 for a malformed body', async () => {
    const res = await call('POST', `${server.url}/api/auth/login`, { body: { email: 'x@example.com' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(SHAPE_A('VALIDATION_ERROR'));
  });

  it('slows repeated failures down: 429 with Retry-After, even for the right password, other emails unaffected', async () => {
    const a = await newAccount();
    const b = await newAccount();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await call('POST', `${server.url}/api/auth/login`, {
        body: { email: a.email, password: `wrong-${i}` },
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const locked = await call('POST', `${server.url}/api/auth/login`, {
      body: { email: a.email, password: a.password },
    });
    expect(locked.status).toBe(429);
    // a limited request (decisions.md, Settings added): RATE_LIMITED with Retry-After and RateLimit-*
    expect(locked.body).toEqual(SHAPE_A('RATE_LIMITED'));
    const retryAfter = Number(locked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(locked.headers['ratelimit-limit']).toBe('5');
    expect(locked.headers['ratelimit-remaining']).toBe('0');
    expect(Number(locked.headers['ratelimit-reset'])).toBe(retryAfter);
    expect(locked.headers['set-cookie']).toBeUndefined();
    await login(server, b.email, b.password); // another email still logs in
  });

  it('does not take right passwords sent at once for failures', async () => {
    const a = await newAccount();
    const logins = await Promise.all(
      Array.from({ length: 8 }, () =>
        call('POST', `${server.url}/api/auth/login`, { body: { email: a.email, password: a.password } }),
      ),
    );
    expect(logins.map((r) => r.status)).toEqual(Array(8).fill(200));
  });

  it('checks at most 5 passwords of guesses sent at once: the rest get 429', async () => {
    const a = await newAccount();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call('POST', `${server.url}/api/auth/login`, { body: { email: a.email, password: `guess-${i}` } }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(5).fill(401), ...Array(15).fill(429)]);
  });
});

describe('GET /api/auth/me and POST /api/auth/logout', () => {
  it('me: 401 shape A without a session or with a forged cookie, 200 with one', async () => {
    const none = await call('GET', `${server.url}/api/auth/me`);
    expect(none.status).toBe(401);
    expect(none.body).toEqual(SHAPE_A('UNAUTHORIZED'));
    const forged = await call('GET', `${server.url}/api/auth/me`, {
      headers: { cookie: `gw_session=${randomBytes(32).toString('base64url')}` },
    });
    expect(forged.status).toBe(401);
    const me = await call('GET', `${server.url}/api/auth/me`, { headers: { cookie: merchant.cookie } });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      user: {
        id: merchant.accountId,
        name: merchant.name,
        email: merchant.email,
        role: 'owner',
        totpEnabled: false,
        permissions: [
          'self',
          'money.view',
          'withdrawals.create',
          'sales.create',
          'disputes.respond',
          'integrations',
          'team',
          'audit',
        ],
      },
      csrfToken: merchant.csrf,
    });
  });

  it('API keys never open panel routes', async () => {
    for (const [method, path] of [
      ['GET', '/api/auth/me'],
      ['GET', '/api/credentials'],
      ['GET', '/api/settings/allowed-ips'],
    ] as const) {
      const res = await call(method, `${server.url}${path}`, { headers: merchant.keys });
      expect(res.status, path).toBe(401);
      expect(res.body).toEqual(SHAPE_A('UNAUTHORIZED'));
    }
  });

  it('logout needs the CSRF token, answers 204, and ends the session', async () => {
    const a = await newAccount();
    const s = await login(server, a.email, a.password);
    const noCsrf = await call('POST', `${server.url}/api/auth/logout`, { headers: { cookie: s.cookie } });
    expect(noCsrf.status).toBe(403);
    const out = await call('POST', `${server.url}/api/auth/logout`, {
      headers: { cookie: s.cookie, 'x-csrf-token': s.csrf },
    });
    expect(out.status).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/^gw_session=;/);
    const me = await call('GET', `${server.url}/api/auth/me`, { headers: { cookie: s.cookie } });
    expect(me.status).toBe(401);
  });
});

describe('CSRF', () => {
  const unsafe = () =>
    [
      ['POST', '/api/credentials', undefined],
      ['PUT', '/api/settings/allowed-ips', { ips: [] }],
      ['DELETE', `/api/credentials/${merchant.credentialId}`, undefined],
    ] as const;

  it('refuses state-changing panel requests without X-CSRF-Token, or with a wrong one (403 FORBIDDEN shape A)', async () => {
    const other = await createMerchant(server);
    for (const [method, path, body] of unsafe()) {
      const variants: Record<string, string>[] = [
        { cookie: merchant.cookie },
        { cookie: merchant.cookie, 'x-csrf-token': '' },
        { cookie: merchant.cookie, 'x-csrf-token': `${merchant.csrf}x` },
        { cookie: merchant.cookie, 'x-csrf-token': other.csrf }, // another session's token
      ];
      for (const headers of variants) {
        const res = await call(method, `${server.url}${path}`, { headers, body });
        expect(res.status, `${method} ${path} ${JSON.stringify(Object.keys(headers))}`).toBe(403);
        expect(res.body).toEqual(SHAPE_A('FORBIDDEN'));
      }
    }
    // nothing changed: the merchant still has exactly its one credential, which still works
    const list = await call<unknown[]>('GET', `${server.url}/api/credentials`, {
      headers: { cookie: merchant.cookie },
    });
    expect(list.body).toHaveLength(1);
    expect((await call('GET', `${server.url}/api/public/balance`, { headers: merchant.keys })).status).toBe(
      200,
    );
  });

  it('reads need no CSRF token', async () => {
    const res = await call('GET', `${server.url}/api/settings/allowed-ips`, {
      headers: { cookie: merchant.cookie },
    });
    expect(res.status).toBe(200);
  });
});

describe('sessions live in the database', () => {
  it('work on a second server process and survive a restart', async () => {
    const db = await freshDatabase();
    try {
      const first = await startServer({ databaseUrl: db.url });
      const a = await newAccount(first);
      const s = await login(first, a.email, a.password);
      const second = await startServer({ databaseUrl: db.url });
      try {
        const me = await call('GET', `${second.url}/api/auth/me`, { headers: { cookie: s.cookie } });
        expect(me.status).toBe(200);
        const created = await call('POST', `${second.url}/api/credentials`, {
          headers: { cookie: s.cookie, 'x-csrf-token': s.csrf },
        });
        expect(created.status).toBe(201);
      } finally {
        await second.close();
      }
      await first.close();
      const restarted = await startServer({ databaseUrl: db.url });
      try {
        const me = await call<{ csrfToken: string }>('GET', `${restarted.url}/api/auth/me`, {
          headers: { cookie: s.cookie },
        });
        expect(me.status).toBe(200);
        expect(me.body.csrfToken).toBe(s.csrf);
      } finally {
        await restarted.close();
      }
    } finally {
      await db.drop();
    }
  });

  it('cookies are Secure in production', async () => {
    const prod = await startServer({
      env: {
        NODE_ENV: 'production',
        POSTBACK_SECRET: randomBytes(32).toString('base64'),
        SECRETS_KEY: randomBytes(32).toString('base64'),
      },
    });
    try {
      const a = await newAccount(prod);
      const s = await login(prod, a.email, a.password);
      expect(s.setCookie).toMatch(/; Secure/i);
      expect(s.setCookie).toMatch(/; HttpOnly/i);
    } finally {
      await prod.close();
    }
  });
});
