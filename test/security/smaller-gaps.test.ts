import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { numericPathId } from '../../src/platform/ids/public-ids.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { rawRequest } from '../support/raw-http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let merchant: TestMerchant;
const TOKEN = 'metrics-token-for-security-tests';

beforeAll(async () => {
  server = await startServer({ workers: false, env: { METRICS_TOKEN: TOKEN } });
  merchant = await createMerchant(server);
});
afterAll(async () => {
  await server?.close();
});

const get = (path: string, extra = '') =>
  `GET ${path} HTTP/1.1\r\nHost: x\r\n${extra}Connection: close\r\n\r\n`;

describe('ids beyond 2^53', () => {
  it('are not read with lost precision: 404, not the neighbouring id', async () => {
    // the next webhook gets the largest safe id, 2^53 - 1
    await server.runtime.platform.db.query(
      "SELECT setval(pg_get_serial_sequence('webhooks', 'id'), 9007199254740990)",
    );
    const hook = await call<{ id: number }>('POST', `${server.url}/api/webhook`, {
      headers: merchant.panel,
      body: { webhookUrl: 'http://127.0.0.1:9/hook', events: ['sale.paid'] },
    });
    expect(hook.status).toBe(201);
    expect(hook.body.id).toBe(9007199254740991);
    const own = await call('GET', `${server.url}/api/webhook/9007199254740991/deliveries`, {
      headers: merchant.panel,
    });
    expect(own.status).toBe(200);
    for (const id of ['9007199254740992', '9007199254740993', '9999999999999999']) {
      const res = await call('GET', `${server.url}/api/webhook/${id}/deliveries`, {
        headers: merchant.panel,
      });
      expect(res.status, id).toBe(404);
      expect(res.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    }
    await server.runtime.platform.db.query("SELECT setval(pg_get_serial_sequence('webhooks', 'id'), 1000)");
    expect(() => numericPathId('9007199254740993', 'gone')).toThrow('gone'); // never read as …992
    const del = await call('DELETE', `${server.url}/api/credentials/9007199254740993`, {
      headers: merchant.panel,
    });
    expect(del.status).toBe(404);
  });
});

describe('errors raised before a route is matched are in that route’s shape', () => {
  it('bad percent-encoding: 400 in shape D on /api/transactions/{id}, shape A elsewhere', async () => {
    const tx = await rawRequest(server.url, get('/api/transactions/%E0%A4%A'));
    expect(tx.status).toBe(400);
    expect(JSON.parse(tx.body)).toEqual({ message: expect.any(String), error: 'VALIDATION_ERROR' });
    const other = await rawRequest(server.url, get('/nowhere/%E0%A4%A'));
    expect(other.status).toBe(400);
    expect(JSON.parse(other.body)).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    expect(other.body).not.toContain('FST_ERR');
    for (const res of [tx, other]) expect(res.head).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/i);
  });

  it('a path id of any length gets its route’s documented answer, without echoing the path', async () => {
    // neither a uuid nor a number → 400 (spec), however long: no router 414
    for (const id of ['x'.repeat(3000), 'x'.repeat(15000)]) {
      const res = await call('GET', `${server.url}/api/transactions/${id}`, { headers: merchant.keys });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: expect.any(String), error: 'VALIDATION_ERROR' });
      expect(JSON.stringify(res.body)).not.toContain('xxx');
    }
    // digits no id can be: unknown → 404
    const digits = await call('GET', `${server.url}/api/transactions/${'1'.repeat(3000)}`, {
      headers: merchant.keys,
    });
    expect(digits.status).toBe(404);
  });

  it('headers too large: 431 in the route shape (E on the balance, A on panel routes)', async () => {
    const big = `X-Big: ${'a'.repeat(20000)}\r\n`;
    const balance = await rawRequest(server.url, get('/api/public/balance', big));
    expect(balance.status).toBe(431);
    expect(JSON.parse(balance.body)).toEqual({ error: 'HEADERS_TOO_LARGE', message: expect.any(String) });
    const panel = await rawRequest(server.url, get('/api/webhook', big));
    expect(panel.status).toBe(431);
    expect(JSON.parse(panel.body)).toMatchObject({ success: false, error: { code: 'HEADERS_TOO_LARGE' } });
    for (const res of [balance, panel]) expect(res.head).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/i);
  });
});

describe('Cache-Control: no-store on responses carrying a CSRF token or a secret, and on every API answer', () => {
  it('login, me, new credential, new webhook', async () => {
    const login = await call('POST', `${server.url}/api/auth/login`, {
      body: { email: merchant.email, password: merchant.password },
    });
    expect(login.status).toBe(200);
    expect(login.headers['cache-control']).toBe('no-store');
    const me = await call('GET', `${server.url}/api/auth/me`, { headers: merchant.panel });
    expect(me.headers['cache-control']).toBe('no-store');
    const cred = await call('POST', `${server.url}/api/credentials`, { headers: merchant.panel });
    expect(cred.headers['cache-control']).toBe('no-store');
    const hook = await call('POST', `${server.url}/api/webhook`, {
      headers: merchant.panel,
      body: { webhookUrl: 'http://127.0.0.1:9/x', events: ['sale.paid'] },
    });
    expect(hook.status, hook.text).toBe(201);
    expect(hook.headers['cache-control']).toBe('no-store');
  });

  it("every API answer, one account's data or an error: the API key's, the panel's and the console's", async () => {
    const answers = [
      await call('GET', `${server.url}/api/public/balance`, { headers: merchant.keys }),
      await call('GET', `${server.url}/api/transactions?limit=1`, { headers: merchant.keys }),
      await call('GET', `${server.url}/api/sales`, { headers: merchant.panel }),
      await call('GET', `${server.url}/api/public/balance`),
      await call('GET', `${server.url}/api/ops/accounts`),
      await call('GET', `${server.url}/api/no-such-route`),
    ];
    expect(answers.map((a) => [a.status, a.headers['cache-control']])).toEqual([
      [200, 'no-store'],
      [200, 'no-store'],
      [200, 'no-store'],
      [401, 'no-store'],
      [401, 'no-store'],
      [404, 'no-store'],
    ]);
  });
});

describe('/metrics bearer scheme', () => {
  it('accepts the scheme in any case, refuses a wrong token', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const res = await call('GET', `${server.url}/metrics`, {
        headers: { authorization: `${scheme} ${TOKEN}` },
      });
      expect(res.status, scheme).toBe(200);
    }
    const wrong = await call('GET', `${server.url}/metrics`, { headers: { authorization: 'bearer nope' } });
    expect(wrong.status).toBe(401);
    const bare = await call('GET', `${server.url}/metrics`, { headers: { authorization: TOKEN } });
    expect(bare.status).toBe(401);
  });
});
