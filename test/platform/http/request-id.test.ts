import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/accounts/accounts.js';
import { openDb } from '../../../src/platform/db/db.js';
import { createMerchant, login, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { freshDatabase } from '../../support/pg.js';
import { type ChildServer, spawnGateway, startServer, type TestServer } from '../../support/server.js';
import { waitUntil } from '../../support/wait.js';

describe('X-Request-Id', () => {
  let server: TestServer;
  let merchant: TestMerchant;
  beforeAll(async () => {
    server = await startServer();
    merchant = await createMerchant(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('echoes a well-formed caller id (1-64 of [A-Za-z0-9._-])', async () => {
    for (const id of ['a', 'abc-DEF_1.2', 'x'.repeat(64)]) {
      const res = await call('GET', `${server.url}/api/public/balance`, {
        headers: { ...merchant.keys, 'x-request-id': id },
      });
      expect(res.status).toBe(200);
      expect(res.headers['x-request-id']).toBe(id);
    }
  });

  it('replaces a malformed one with a generated id', async () => {
    for (const id of ['x'.repeat(65), 'has space', 'semi;colon', '%C3%BC', '']) {
      const res = await call('GET', `${server.url}/api/public/balance`, {
        headers: { ...merchant.keys, 'x-request-id': id },
      });
      const got = res.headers['x-request-id'] as string;
      expect(got).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('is on every response: success, auth error, validation error, unknown route', async () => {
    const responses = await Promise.all([
      call('GET', `${server.url}/api/public/balance`, { headers: merchant.keys }),
      call('GET', `${server.url}/api/public/balance`),
      call('POST', `${server.url}/api/auth/login`, { body: '{nope' }),
      call('GET', `${server.url}/no/such/route`),
      call('GET', `${server.url}/health`),
    ]);
    expect(responses.map((r) => r.status)).toEqual([200, 401, 400, 404, 200]);
    const ids = responses.map((r) => r.headers['x-request-id']);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('logs of a real server run', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let gateway: ChildServer;
  const metricsToken = `mt-${randomBytes(12).toString('hex')}`;
  beforeAll(async () => {
    db = await freshDatabase();
    gateway = await spawnGateway(['serve', '--no-worker'], {
      DATABASE_URL: db.url,
      NODE_ENV: 'test',
      LOG_LEVEL: 'trace',
      METRICS_TOKEN: metricsToken,
    });
  });
  afterAll(async () => {
    await gateway?.stop();
    await db?.drop();
  });

  it('carry the request id on every line of a request and none of the secrets used', async () => {
    const email = `m-${randomBytes(6).toString('hex')}@example.com`;
    const password = `pw-${randomBytes(12).toString('hex')}`;
    const handle = await openDb({ databaseUrl: db.url });
    await createAccount(handle, { name: 'Log Test', email, password });
    await handle.close();

    const session = await login({ url: gateway.url }, email, password);
    const sessionToken = session.cookie.split('=')[1]!;
    const panel = { cookie: session.cookie, 'x-csrf-token': session.csrf };
    const cred = await call<{ publicKey: string; privateKey: string }>(
      'POST',
      `${gateway.url}/api/credentials`,
      { headers: panel },
    );
    expect(cred.status).toBe(201);
    const keys = { 'x-api-public-key': cred.body.publicKey, 'x-api-private-key': cred.body.privateKey };
    const traced = 'trace-me-0001';
    expect(
      (
        await call('GET', `${gateway.url}/api/public/balance`, {
          headers: { ...keys, 'x-request-id': traced },
        })
      ).status,
    ).toBe(200);
    await call('GET', `${gateway.url}/api/public/balance`, {
      headers: { ...keys, 'x-api-private-key': `${cred.body.privateKey}x` },
    });
    await call('POST', `${gateway.url}/api/auth/login`, { body: { email, password: `${password}-wrong` } });
    expect(
      (await call('GET', `${gateway.url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } }))
        .status,
    ).toBe(200);
    await call('POST', `${gateway.url}/api/auth/logout`, { headers: panel });

    // lines are written in batches (at the latest 250 ms after being logged); the logout's access line is last
    const out = await waitUntil(() => {
      const text = gateway.output();
      return /"url":"\/api\/auth\/logout"[^\n]*"msg":"request completed"/.test(text) ? text : undefined;
    });
    for (const secret of [password, cred.body.privateKey, sessionToken, session.csrf, metricsToken]) {
      expect(out.includes(secret), `a secret reached the log`).toBe(false);
    }
    const lines = out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { reqId?: string; msg?: string });
    const ofTraced = lines.filter((l) => l.reqId === traced);
    expect(ofTraced.map((l) => l.msg)).toEqual(['incoming request', 'request completed']);
    // the access line says what happened, without any header
    const access = lines.find((l) => l.reqId === traced && l.msg === 'request completed') as Record<
      string,
      unknown
    >;
    expect(access).toMatchObject({ method: 'GET', url: '/api/public/balance', statusCode: 200 });
    expect(access.responseTime).toEqual(expect.any(Number));
    expect(JSON.stringify(access)).not.toMatch(/x-api-/i);
    // every line Fastify writes about a request names its id
    for (const l of lines.filter((x) => x.msg === 'incoming request' || x.msg === 'request completed')) {
      expect(l.reqId).toBeTruthy();
    }
  });
});
