/**
 * Every registered route, authenticated as a merchant (API keys, session cookie and CSRF token at once, so
 * each route gets past its own authentication to the body parser and validation) or, on the console's routes,
 * as an admin operator, answers hostile JSON bodies with a 4xx in its own error shape: never a 500, never a hang.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { createOperator, type TestOperator } from '../../support/operators.js';
import { startServer, type TestServer } from '../../support/server.js';

let server: TestServer;
let merchant: TestMerchant;
let operator: TestOperator;

beforeAll(async () => {
  server = await startServer();
  merchant = await createMerchant(server);
  operator = await createOperator(server, 'admin');
});
afterAll(() => server?.close());

const deep = (n: number) => `{"ips": ${'['.repeat(n)}${']'.repeat(n)}}`;
const wide = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`;
const BODIES: [string, string][] = [
  ['nested 50,000 levels deep', deep(50_000)],
  ['nested 33 levels deep (just past the limit)', deep(33)],
  // half a UTF-16 surrogate pair is no text: PostgreSQL's json refused it with a 500 before (refused before
  // any valid body, which would end the session on logout, the last route)
  [
    'with half a surrogate pair',
    '{"amount": 100, "pixKey": "52998224725", "name": "a\\ud800b", "customer": {"name": "\\udc00", "email": "x@example.com"}, "items": [{"title": "\\ud800"}], "pix": [{"endToEndId": "E\\ud800"}]}',
  ],
  // refused too before any valid body (logout)
  ['with duplicate keys', '{"amount": 100, "amount": "1e400", "pixKey": "52998224725", "pixKey": 7}'],
  ['with 100,000 keys', wide(100_000)],
  ['with a 900 KB string', JSON.stringify({ amount: 100, pixKey: 'x'.repeat(900_000), name: 'y' })],
];

/** The route's shape family, recognised from the body (shapes B and C carry their own codes). */
function shapeOf(body: unknown): string {
  const b = body as Record<string, unknown>;
  if (b && b.success === false && typeof (b.error as { code?: unknown })?.code === 'string') return 'A';
  if (b && typeof b.message === 'string' && typeof b.code === 'string') return 'B';
  if (b && typeof b.message === 'string' && typeof b.errorType === 'string') return 'C';
  if (b && typeof b.message === 'string' && typeof b.error === 'string') return 'D/E';
  return `not an error shape: ${JSON.stringify(body).slice(0, 200)}`;
}

describe('hostile JSON bodies on every route', () => {
  it('refuses the deep body of the report with 400 VALIDATION_ERROR before parsing it', async () => {
    const res = await call('PUT', `${server.url}/api/settings/allowed-ips`, {
      headers: { ...merchant.panel, 'content-type': 'application/json' },
      body: deep(50_000),
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: { code: 'VALIDATION_ERROR', message: 'Body nests deeper than 32 levels' },
    });
    const ips = await call('GET', `${server.url}/api/settings/allowed-ips`, { headers: merchant.panel });
    expect(ips.body).toEqual({ ips: [] }); // nothing written
  });
  it('refuses half a surrogate pair with 400 and nothing written, and takes a whole pair as the character it is', async () => {
    const body = (name: string) =>
      `{"amount": 1000, "paymentMethod": "PIX", "customer": {"name": "${name}", "email": "c@example.com", "phone": "11999999999", "document": "52998224725"}, "items": [{"title": "Caneca", "unitPrice": 1000, "quantity": 1, "tangible": false}]}`;
    const headers = { ...merchant.keys, 'content-type': 'application/json' };
    const lone = await call('POST', `${server.url}/api/sandbox/sales`, {
      headers,
      body: body('Ana \\ud83d'),
    });
    expect(lone.status).toBe(400);
    expect(lone.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    const pair = await call<{ customer: { name: string } }>('POST', `${server.url}/api/sandbox/sales`, {
      headers,
      body: body('Ana \\ud83d\\ude00'),
    });
    expect(pair.status, JSON.stringify(pair.body)).toBe(201);
    expect(pair.body.customer.name).toBe('Ana 😀');
  });

  it('refuses a NUL in any field (item titles and metadata included) with 400 and nothing written, and names a __proto__ key', async () => {
    const sale = (items: string, metadata: string) =>
      `{"amount": 1000, "paymentMethod": "PIX", "customer": {"name": "Ana Lima", "email": "c@example.com", "phone": "11999999999", "document": "52998224725"}, "items": [{"title": ${items}, "unitPrice": 1000, "quantity": 1, "tangible": false}], "metadata": ${metadata}}`;
    const headers = { ...merchant.keys, 'content-type': 'application/json' };
    const before = await server.runtime.platform.db.query<{ n: string }>(
      'SELECT count(*)::text AS n FROM sales',
    );
    for (const body of [sale('"a\\u0000b"', '{}'), sale('"Caneca"', '{"k": "v\\u0000"}')]) {
      const res = await call('POST', `${server.url}/api/transactions`, { headers, body });
      expect(res.status, res.text).toBe(400);
      expect(res.body).toEqual({
        message: 'Text fields must not contain NUL characters',
        error: 'VALIDATION_ERROR',
      });
    }
    const after = await server.runtime.platform.db.query<{ n: string }>(
      'SELECT count(*)::text AS n FROM sales',
    );
    expect(after[0]!.n).toBe(before[0]!.n);
    // an escaped backslash before "u0000" is the six characters \u0000, not a NUL
    const text = await call<{ items: { title: string }[] }>('POST', `${server.url}/api/transactions`, {
      headers,
      body: sale('"C:\\\\u0000"', '{}'),
    });
    expect(text.status, text.text).toBe(201);
    expect(text.body.items[0]!.title).toBe('C:\\u0000');
    // valid JSON the poisoning guard refuses is told as such, not as "not valid JSON"
    const proto = await call('POST', `${server.url}/api/transactions`, {
      headers,
      body: sale('"Caneca"', '{"__proto__": "x"}'),
    });
    expect(proto.status).toBe(400);
    expect(proto.body).toEqual({
      message:
        'Body has a "__proto__" key (or a "constructor" key holding "prototype"), which is not accepted',
      error: 'VALIDATION_ERROR',
    });
    const broken = await call('POST', `${server.url}/api/transactions`, { headers, body: '{"amount": ' });
    expect(broken.body).toEqual({ message: 'Body is not valid JSON', error: 'VALIDATION_ERROR' });
  });

  it('are answered with a 4xx in the route’s error shape', async () => {
    // logout last: it ends the session the other routes use
    const routes = server.runtime
      .app!.routeList.filter((r) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method))
      .filter((r) => !r.url.startsWith('/docs'))
      .sort((a, b) => Number(a.url.endsWith('/auth/logout')) - Number(b.url.endsWith('/auth/logout')));
    expect(routes.length).toBeGreaterThan(15);
    const failures: string[] = [];
    for (const route of routes) {
      const url = server.url + route.url.replace(/:[A-Za-z]+/g, '999999');
      for (const [name, body] of BODIES) {
        const credentials = route.url.startsWith('/api/ops/')
          ? operator.ops
          : { ...merchant.keys, ...merchant.panel };
        const res = await call(route.method, url, {
          headers: { ...credentials, 'content-type': 'application/json' },
          body,
        });
        const shape = shapeOf(res.body);
        const expected = route.errorShape === 'envelope' ? ['A', 'B', 'C'] : ['D/E', 'B', 'C'];
        // past authentication, the parser refuses the deep bodies, lone surrogates and repeated keys first, on
        // every route
        const refusedDeep =
          !(name.startsWith('nested') || name.includes('surrogate') || name.includes('duplicate')) ||
          res.status === 400;
        if (res.status >= 500 || (res.status >= 400 && !expected.includes(shape)) || !refusedDeep) {
          failures.push(`${route.method} ${route.url} ${name}: ${res.status} ${shape}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });
});

describe('a key written twice in one object', () => {
  const withdrawals = async () =>
    (
      await server.runtime.platform.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM withdrawals WHERE account_id = $1',
        [merchant.accountId],
      )
    )[0]!.n;

  it('is refused on the cashout route with 400 shape D naming the key, nothing written', async () => {
    const merchant2 = await createMerchant(server);
    const before = await withdrawals();
    const cases: [string, string][] = [
      ['{"amount": 1, "amount": 99999, "pixKey": "52998224725"}', 'amount'],
      ['{"amount": 150, "pixKey": "52998224725", "pixKey": "user@example.com"}', 'pixKey'],
      // the same key spelled with an escape is the same key once decoded
      ['{"amount": 99999, "\\u0061mount": 150, "pixKey": "52998224725"}', 'amount'],
      // anywhere in the tree, not only at the top
      ['{"amount": 150, "pixKey": "52998224725", "x": [{"a": 1}, {"b": {"c": 1, "c": 2}}]}', 'c'],
    ];
    for (const [body, key] of cases) {
      const res = await call('POST', `${server.url}/api/public/cashout`, {
        headers: { ...merchant2.keys, 'content-type': 'application/json' },
        body,
      });
      expect(res.status, body).toBe(400);
      expect(res.body).toEqual({
        message: `Body has the key "${key}" more than once in one object`,
        error: 'VALIDATION_ERROR',
      });
    }
    expect(await withdrawals()).toBe(before);
    // the same names in different objects are no repeat: this body reaches the cashout rules (422: no money)
    const fine = await call('POST', `${server.url}/api/public/cashout`, {
      headers: { ...merchant2.keys, 'content-type': 'application/json' },
      body: '{"amount": 150, "pixKey": "52998224725", "x": [{"amount": 1}, {"amount": 2, "y": {"amount": 3}}]}',
    });
    expect(fine.status).toBe(422);
    expect(fine.body).toMatchObject({ errorType: 'INSUFFICIENT_BALANCE' });
  });

  it('is refused on a panel route with 400 shape A, nothing written', async () => {
    const merchant2 = await createMerchant(server);
    const res = await call('POST', `${server.url}/api/webhook`, {
      headers: { ...merchant2.panel, 'content-type': 'application/json' },
      body: '{"webhookUrl": "https://example.com/a", "events": ["sale.paid"], "webhookUrl": "http://127.0.0.1/b"}',
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: {
        code: 'VALIDATION_ERROR',
        message: 'Body has the key "webhookUrl" more than once in one object',
      },
    });
    const ips = await call('PUT', `${server.url}/api/settings/allowed-ips`, {
      headers: { ...merchant2.panel, 'content-type': 'application/json' },
      body: '{"ips": ["10.0.0.1"], "ips": []}',
    });
    expect(ips.status).toBe(400);
    expect(ips.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    const list = await call('GET', `${server.url}/api/webhook`, { headers: merchant2.panel });
    expect(list.body).toEqual([]);
    const stored = await call('GET', `${server.url}/api/settings/allowed-ips`, { headers: merchant2.panel });
    expect(stored.body).toEqual({ ips: [] });
  });
});

describe('bodies that are not UTF-8 JSON text', () => {
  it('are refused with 400 and a message that says what to send (text, form, compressed, another charset)', async () => {
    const merchant = await createMerchant(server); // the describe above logged its merchant's session out
    const body = JSON.stringify({ amount: 150, pixKey: '52998224725' });
    const cases: [Record<string, string>, string | Buffer, RegExp][] = [
      [{ 'content-type': 'text/plain' }, body, /Content-Type must be application\/json/],
      [{ 'content-type': 'application/x-www-form-urlencoded' }, 'amount=150', /Content-Type must be/],
      [
        { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        gzipSync(body),
        /Content-Encoding gzip is not accepted/,
      ],
      [
        { 'content-type': 'application/json; charset=utf-16' },
        Buffer.from(body, 'utf16le'),
        /charset must be utf-8/,
      ],
    ];
    for (const [headers, sent, message] of cases) {
      const res = await call<{ message: string; error: string }>('POST', `${server.url}/api/public/cashout`, {
        headers: { ...merchant.keys, ...headers },
        body: sent,
      });
      expect(res.status, JSON.stringify(headers)).toBe(400);
      expect(res.body).toEqual({ message: expect.stringMatching(message), error: 'VALIDATION_ERROR' });
      const panel = await call<{ success: false; error: { code: string; message: string } }>(
        'POST',
        `${server.url}/api/webhook`,
        { headers: { ...merchant.panel, ...headers }, body: sent },
      );
      expect(panel.status, JSON.stringify(headers)).toBe(400);
      expect(panel.body.error.message).toMatch(message);
    }
    const utf8 = await call('POST', `${server.url}/api/public/cashout`, {
      headers: { ...merchant.keys, 'content-type': 'application/json; charset=UTF-8' },
      body,
    });
    // read and decided: the new merchant has no balance
    expect(utf8.status, utf8.text).toBe(422);
    expect(utf8.body).toMatchObject({ errorType: 'INSUFFICIENT_BALANCE' });
    // ASCII JSON labelled with an ASCII-compatible charset (a bank's stack, say) reads the same
    const latin1 = await call('POST', `${server.url}/api/public/cashout`, {
      headers: { ...merchant.keys, 'content-type': 'application/json; charset=ISO-8859-1' },
      body,
    });
    expect(latin1.status, latin1.text).toBe(422);
  });
});
