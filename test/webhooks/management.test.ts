import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openKeys } from '../../src/webhooks/crypto.js';
import { MAX_WEBHOOKS_PER_ACCOUNT } from '../../src/webhooks/webhooks.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { recordFact } from '../support/notifications.js';
import { startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
import { createWebhook, deliveries } from '../support/webhooks.js';

let server: TestServer;
let merchant: TestMerchant;
let other: TestMerchant;
const url = (path: string) => `${server.url}${path}`;

beforeAll(async () => {
  server = await startServer();
  merchant = await createMerchant(server);
  other = await createMerchant(server, 'Other Merchant');
});
afterAll(() => server?.close());

const shapeA = (code: string) => ({ success: false, error: { code, message: expect.any(String) } });

describe('POST /api/webhook', () => {
  it('creates a webhook and shows its whsec_ secret once', async () => {
    const res = await call<Record<string, unknown>>('POST', url('/api/webhook'), {
      headers: merchant.panel,
      body: {
        webhookUrl: 'https://merchant.example.com/hooks',
        events: ['sale.paid', 'withdrawal.completed'],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      webhookUrl: 'https://merchant.example.com/hooks',
      events: ['sale.paid', 'withdrawal.completed'],
      status: 'active',
      disabledReason: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      createdAt: expect.any(String),
    });
    expect(Buffer.from((res.body.secret as string).slice(6), 'base64')).toHaveLength(32);
  });

  it('stores the secret only encrypted, and never returns it from a read', async () => {
    const hook = await createWebhook(server, merchant, 'https://merchant.example.com/enc', ['*']);
    const [row] = await server.runtime.platform.db.query<{ secret_enc: string }>(
      'SELECT secret_enc FROM webhooks WHERE id = $1',
      [hook.id],
    );
    const dump = JSON.stringify(
      await server.runtime.platform.db.query('SELECT * FROM webhooks WHERE id = $1', [hook.id]),
    );
    expect(dump).not.toContain(hook.secret);
    expect(dump).not.toContain(hook.secret.slice(6));
    expect(openKeys(server.runtime.platform.config.secretsKey, row!.secret_enc).current).toBe(hook.secret);

    const list = await call<Record<string, unknown>[]>('GET', url('/api/webhook'), {
      headers: merchant.panel,
    });
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(hook.secret.slice(6));
    expect(list.body[0]).toEqual({
      id: hook.id,
      webhookUrl: 'https://merchant.example.com/enc',
      events: ['*'],
      status: 'active',
      disabledReason: null,
      createdAt: hook.createdAt,
    });
    const put = await call('PUT', url(`/api/webhook/${hook.id}`), {
      headers: merchant.panel,
      body: { events: ['sale.paid'] },
    });
    expect(put.text).not.toContain('secret');
  });

  it('refuses bad URLs and event lists with 400 VALIDATION_ERROR', async () => {
    const bad: unknown[] = [
      { webhookUrl: 'not a url', events: ['*'] },
      { webhookUrl: '/relative/path', events: ['*'] },
      { webhookUrl: 'ftp://example.com/x', events: ['*'] },
      { webhookUrl: 'javascript:alert(1)', events: ['*'] },
      { webhookUrl: 'https://user:pw@example.com/', events: ['*'] },
      { webhookUrl: 'https://example.com/a\u0000b', events: ['*'] },
      // the URL parser reads these as http://x/ or http://example.com/: stored as sent they would hide the target
      { webhookUrl: 'http:///x', events: ['*'] },
      { webhookUrl: 'http:\\\\example.com/x', events: ['*'] },
      { webhookUrl: ' http://example.com/', events: ['*'] },
      { webhookUrl: 'http://example.com/a b', events: ['*'] },
      { webhookUrl: 42, events: ['*'] },
      { webhookUrl: 'https://example.com/', events: [] },
      { webhookUrl: 'https://example.com/', events: ['sale.paid', 'sale.exploded'] },
      { webhookUrl: 'https://example.com/', events: 'sale.paid' },
      { webhookUrl: 'https://example.com/', events: [7] },
      { webhookUrl: 'https://example.com/', events: ['*', 'sale.paid'] }, // "*" stands alone
      { webhookUrl: 'https://example.com/', events: ['cart.abandoned', '*'] },
      { webhookUrl: 'https://example.com/' },
      { events: ['*'] },
    ];
    for (const body of bad) {
      const res = await call('POST', url('/api/webhook'), { headers: merchant.panel, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual(shapeA('VALIDATION_ERROR'));
    }
    const res = await call<{ error: { message: string } }>('POST', url('/api/webhook'), {
      headers: merchant.panel,
      body: { webhookUrl: 'https://example.com/', events: ['sale.exploded'] },
    });
    expect(res.body.error.message).toContain('sale.exploded');
  });

  it('requires a session (401) and the CSRF token (403), or an API key pair', async () => {
    const body = { webhookUrl: 'https://example.com/', events: ['*'] };
    const anon = await call('POST', url('/api/webhook'), { body });
    expect(anon.status).toBe(401);
    expect(anon.body).toEqual(shapeA('UNAUTHORIZED'));
    const noCsrf = await call('POST', url('/api/webhook'), { headers: { cookie: merchant.cookie }, body });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body).toEqual(shapeA('FORBIDDEN'));
    // an API key pair opens them too (test/webhooks/api-key-routes.test.ts)
    const keys = await call('GET', url('/api/webhook'), { headers: merchant.keys });
    expect(keys.status).toBe(200);
  });
});

describe('GET/PUT/DELETE /api/webhook', () => {
  it('lists own webhooks newest first, never another account’s', async () => {
    const m = await createMerchant(server);
    const a = await createWebhook(server, m, 'https://a.example.com/', ['*']);
    const b = await createWebhook(server, m, 'https://b.example.com/', ['sale.paid']);
    await createWebhook(server, other, 'https://other.example.com/', ['*']);
    const res = await call<{ id: number }[]>('GET', url('/api/webhook'), { headers: m.panel });
    expect(res.body.map((w) => w.id)).toEqual([b.id, a.id]);
  });

  it('updates the URL and/or events and answers 200 with the record', async () => {
    const hook = await createWebhook(server, merchant, 'https://before.example.com/', ['sale.paid']);
    const res = await call('PUT', url(`/api/webhook/${hook.id}`), {
      headers: merchant.panel,
      body: { webhookUrl: 'https://after.example.com/x' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: hook.id,
      webhookUrl: 'https://after.example.com/x',
      events: ['sale.paid'],
      status: 'active',
      disabledReason: null,
      createdAt: hook.createdAt,
    });
    const both = await call('PUT', url(`/api/webhook/${hook.id}`), {
      headers: merchant.panel,
      body: { events: ['cart.recovered'] },
    });
    expect(both.body).toMatchObject({
      webhookUrl: 'https://after.example.com/x',
      events: ['cart.recovered'],
    });
    for (const body of [
      {},
      { events: [] },
      { webhookUrl: 'nope' },
      { events: ['x'] },
      { events: ['*', 'x'] },
    ]) {
      const bad = await call('PUT', url(`/api/webhook/${hook.id}`), { headers: merchant.panel, body });
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body).toEqual(shapeA('VALIDATION_ERROR'));
    }
  });

  it('answers 404 for another account’s webhook on every route, and changes nothing', async () => {
    const theirs = await createWebhook(server, other, 'https://theirs.example.com/', ['*']);
    const put = await call('PUT', url(`/api/webhook/${theirs.id}`), {
      headers: merchant.panel,
      body: { webhookUrl: 'https://evil.example.com/' },
    });
    expect(put.status).toBe(404);
    expect(put.body).toEqual(shapeA('NOT_FOUND'));
    expect((await call('DELETE', url(`/api/webhook/${theirs.id}`), { headers: merchant.panel })).status).toBe(
      404,
    );
    expect(
      (await call('GET', url(`/api/webhook/${theirs.id}/deliveries`), { headers: merchant.panel })).status,
    ).toBe(404);
    expect(
      (await call('GET', url('/api/webhook/999999999/deliveries'), { headers: merchant.panel })).status,
    ).toBe(404);
    const list = await call<{ id: number; webhookUrl: string }[]>('GET', url('/api/webhook'), {
      headers: other.panel,
    });
    expect(list.body.find((w) => w.id === theirs.id)?.webhookUrl).toBe('https://theirs.example.com/');
  });

  it('deletes with 204, then the webhook is gone (404)', async () => {
    const hook = await createWebhook(server, merchant, 'https://del.example.com/', ['*']);
    const del = await call('DELETE', url(`/api/webhook/${hook.id}`), { headers: merchant.panel });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await call('DELETE', url(`/api/webhook/${hook.id}`), { headers: merchant.panel })).status).toBe(
      404,
    );
    const list = await call<{ id: number }[]>('GET', url('/api/webhook'), { headers: merchant.panel });
    expect(list.body.some((w) => w.id === hook.id)).toBe(false);
  });
});

describe('deliveries and resend', () => {
  it('validates limit (1..100, default 20) and lists newest first', async () => {
    const receiver = await startReceiver();
    try {
      const m = await createMerchant(server);
      const hook = await createWebhook(server, m, receiver.url, ['sale.paid']);
      for (let i = 0; i < 22; i++) await recordFact(server, m.accountId, 'sale.paid');
      await receiver.waitFor(22);
      const all = await waitUntil(async () => {
        const l = await deliveries(server, m, hook.id, 100);
        return l.length === 22 && l.every((d) => d.status === 'DELIVERED') ? l : undefined;
      });
      const ids = all.map((d) => d.id);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      const dflt = await call<unknown[]>('GET', url(`/api/webhook/${hook.id}/deliveries`), {
        headers: m.panel,
      });
      expect(dflt.body).toHaveLength(20);
      const two = await call<unknown[]>('GET', url(`/api/webhook/${hook.id}/deliveries?limit=2`), {
        headers: m.panel,
      });
      expect(two.body).toEqual(all.slice(0, 2));
      for (const bad of ['0', '101', '-1', 'abc', '1.5', '']) {
        const res = await call('GET', url(`/api/webhook/${hook.id}/deliveries?limit=${bad}`), {
          headers: m.panel,
        });
        expect(res.status, bad).toBe(400);
        expect(res.body).toEqual({
          success: false,
          error: { code: 'VALIDATION_ERROR', message: 'limit must be a whole number from 1 to 100' },
        });
      }
    } finally {
      await receiver.close();
    }
  });

  it('resend answers 202 for own deliveries and 404 for another account’s', async () => {
    const receiver = await startReceiver();
    try {
      const hook = await createWebhook(server, other, receiver.url, ['sale.canceled']);
      await recordFact(server, other.accountId, 'sale.canceled');
      const [d] = await waitUntil(async () => {
        const l = await deliveries(server, other, hook.id);
        return l[0]?.status === 'DELIVERED' ? l : undefined;
      });
      const theirs = await call('POST', url(`/api/webhook/deliveries/${d!.id}/resend`), {
        headers: merchant.panel,
      });
      expect(theirs.status).toBe(404);
      expect(theirs.body).toEqual(shapeA('NOT_FOUND'));
      expect(
        (await call('POST', url('/api/webhook/deliveries/99999999/resend'), { headers: merchant.panel }))
          .status,
      ).toBe(404);
      const noCsrf = await call('POST', url(`/api/webhook/deliveries/${d!.id}/resend`), {
        headers: { cookie: other.cookie },
      });
      expect(noCsrf.status).toBe(403);
      const own = await call('POST', url(`/api/webhook/deliveries/${d!.id}/resend`), {
        headers: other.panel,
      });
      expect(own.status).toBe(202);
      await receiver.waitFor(2);
    } finally {
      await receiver.close();
    }
  });
});

describe('webhooks per account', () => {
  it(`refuses more than ${MAX_WEBHOOKS_PER_ACCOUNT} live webhooks with 400, also when created at once`, async () => {
    const m = await createMerchant(server);
    const make = (i: number) =>
      call('POST', url('/api/webhook'), {
        headers: m.panel,
        body: { webhookUrl: `https://merchant.example.com/h${i}`, events: ['*'] },
      });
    const results = await Promise.all(
      Array.from({ length: MAX_WEBHOOKS_PER_ACCOUNT + 5 }, (_, i) => make(i)),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(MAX_WEBHOOKS_PER_ACCOUNT);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(5);
    for (const r of refused) {
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    }
    // deleting one makes room for one
    const list = await call<{ id: number }[]>('GET', url('/api/webhook'), { headers: m.panel });
    expect((await call('DELETE', url(`/api/webhook/${list.body[0]!.id}`), { headers: m.panel })).status).toBe(
      204,
    );
    expect((await make(99)).status).toBe(201);
    expect((await make(100)).status).toBe(400);
  });
});
