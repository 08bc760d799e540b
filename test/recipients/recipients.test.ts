import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../src/ledger/verify.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { createRecipient, recipientBalance, recipientInput } from './fixtures.js';

let server: TestServer;
let platform: TestMerchant;
let other: TestMerchant;

beforeAll(async () => {
  server = await startServer({ workers: false });
  platform = await createMerchant(server, 'Marketplace');
  other = await createMerchant(server, 'Outra loja');
});
afterAll(() => server?.close());

describe('recipients', () => {
  it('creates one with its own zero balance, reads it back and lists it', async () => {
    const r = await createRecipient(server, platform, { transferInterval: 'weekly' });
    expect(r).toMatchObject({
      name: 'Loja da Ana',
      document: '52998224725',
      email: 'ana@example.com',
      pixKey: 'ana@example.com',
      pixKeyType: 'EMAIL',
      transferInterval: 'weekly',
    });
    expect(r.id).toMatch(/^[0-9a-f-]{36}$/);
    const one = await call('GET', `${server.url}/api/recipients/${r.id}`, { headers: platform.keys });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(r);
    expect(await recipientBalance(server, platform, r.id)).toEqual({
      available: 0,
      blocked: 0,
      receivable: 0,
      total: 0,
    });
    const manual = await createRecipient(server, platform, { name: 'Seu João' });
    expect(manual.transferInterval).toBe('manual');
    const list = await call<{ data: { id: string }[]; nextCursor: string | null }>(
      'GET',
      `${server.url}/api/recipients?limit=1`,
      { headers: platform.keys },
    );
    expect(list.status).toBe(200);
    expect(list.body.data.map((x) => x.id)).toEqual([manual.id]);
    const next = await call<{ data: { id: string }[]; nextCursor: string | null }>(
      'GET',
      `${server.url}/api/recipients?limit=1&cursor=${list.body.nextCursor}`,
      { headers: platform.keys },
    );
    expect(next.body.data.map((x) => x.id)).toEqual([r.id]);
    expect((await verifyLedger(server.runtime.platform.db)).problems).toEqual([]);
  });

  it("hides a recipient from every other account (404, shape D), and from ids that are not one's", async () => {
    const r = await createRecipient(server, platform);
    for (const path of [`/api/recipients/${r.id}`, `/api/recipients/${r.id}/balance`]) {
      const res = await call<{ message: string; error: string }>('GET', `${server.url}${path}`, {
        headers: other.keys,
      });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Recipient not found', error: 'NOT_FOUND' });
    }
    const list = await call<{ data: unknown[] }>('GET', `${server.url}/api/recipients`, {
      headers: other.keys,
    });
    expect(list.body.data).toEqual([]);
    const junk = await call('GET', `${server.url}/api/recipients/not-an-id`, { headers: platform.keys });
    expect(junk.status).toBe(404);
    const unauth = await call('GET', `${server.url}/api/recipients`);
    expect(unauth.status).toBe(401);
  });

  it('refuses bad input with a 400 naming the field, and stores nothing', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ name: '' }, /name/],
      [{ document: '11111111111' }, /document/],
      [{ document: '52998224724' }, /document/],
      [{ email: 'nope' }, /email/],
      [{ pixKeyType: 'IBAN' }, /pixKeyType/],
      [{ pixKey: '123', pixKeyType: 'CPF' }, /pixKey/],
      [{ pixKey: '+5511', pixKeyType: 'PHONE' }, /pixKey/],
      [{ transferInterval: 'monthly' }, /transferInterval/],
    ];
    const fresh = await createMerchant(server, 'Vazia');
    for (const [override, message] of cases) {
      const res = await call<{ message: string; error: string }>('POST', `${server.url}/api/recipients`, {
        headers: fresh.keys,
        body: recipientInput(override),
      });
      expect(res.status, JSON.stringify(override)).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
      expect(res.body.message).toMatch(message);
    }
    const missing = await call<{ error: string }>('POST', `${server.url}/api/recipients`, {
      headers: fresh.keys,
      body: { name: 'x' },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('VALIDATION_ERROR');
    const list = await call<{ data: unknown[] }>('GET', `${server.url}/api/recipients`, {
      headers: fresh.keys,
    });
    expect(list.body.data).toEqual([]);
  });
});
