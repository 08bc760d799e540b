import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

/** The /api/webhook routes with an API key pair: a full key manages webhooks, a read key lists them only. */
let server: TestServer;
let m: TestMerchant;
let other: TestMerchant;

beforeAll(async () => {
  server = await startServer({ workers: false });
  m = await createMerchant(server, 'Webhooks por API');
  other = await createMerchant(server, 'Outra');
});
afterAll(() => server?.close());

const keyOf = async (scope: 'read' | 'charges' | 'full') => {
  const res = await call<{ publicKey: string; privateKey: string }>('POST', `${server.url}/api/credentials`, {
    headers: m.panel,
    body: { name: `webhooks ${scope}`, scope },
  });
  expect(res.status).toBe(201);
  return { 'x-api-public-key': res.body.publicKey, 'x-api-private-key': res.body.privateKey };
};

describe('/api/webhook with API keys', () => {
  it('a full key creates, lists, reads deliveries of, rotates and deletes a webhook; audited as the key', async () => {
    const full = m.keys;
    const made = await call<{ id: number; secret: string }>('POST', `${server.url}/api/webhook`, {
      headers: full,
      body: { webhookUrl: 'https://merchant.example.com/hooks', events: ['sale.paid'] },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body.secret).toMatch(/^whsec_/);
    const list = await call<{ id: number }[]>('GET', `${server.url}/api/webhook`, { headers: full });
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).toContain(String(made.body.id));
    expect(
      (await call('GET', `${server.url}/api/webhook/${made.body.id}/deliveries`, { headers: full })).status,
    ).toBe(200);
    // another account's key sees none of it
    expect(
      (await call('GET', `${server.url}/api/webhook/${made.body.id}/deliveries`, { headers: other.keys }))
        .status,
    ).toBe(404);
    const removed = await call('DELETE', `${server.url}/api/webhook/${made.body.id}`, { headers: full });
    expect(removed.status).toBe(204);
    const [audit] = await server.runtime.platform.db.query<{ actor_type: string }>(
      `SELECT actor_type FROM audit_log WHERE account_id = $1 AND action = 'webhook.created'`,
      [m.accountId],
    );
    expect(audit!.actor_type).toBe('api_key');
  });

  it('a read or charges key lists but changes nothing (403 shape D); wrong keys are 401', async () => {
    for (const scope of ['read', 'charges'] as const) {
      const key = await keyOf(scope);
      expect((await call('GET', `${server.url}/api/webhook`, { headers: key })).status).toBe(200);
      const refused = await call('POST', `${server.url}/api/webhook`, {
        headers: key,
        body: { webhookUrl: 'https://merchant.example.com/x', events: ['sale.paid'] },
      });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ error: 'FORBIDDEN', message: expect.stringContaining('"full"') });
    }
    const wrong = await call('GET', `${server.url}/api/webhook`, {
      headers: { 'x-api-public-key': m.keys['x-api-public-key']!, 'x-api-private-key': 'sk_wrong' },
    });
    expect(wrong.status).toBe(401);
    // the panel session keeps working, as before
    expect((await call('GET', `${server.url}/api/webhook`, { headers: m.panel })).status).toBe(200);
  });
});
