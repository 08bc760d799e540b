import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { countRows, createSession, type SessionBody, sessionInput } from './fixtures.js';

let server: TestServer;
let merchant: TestMerchant;
let other: TestMerchant;

const create = (body: unknown, who = merchant) =>
  call<SessionBody & { message: string; error: string }>('POST', `${server.url}/api/checkout/sessions`, {
    headers: who.keys,
    body,
  });
const get = (id: string, who = merchant) =>
  call<SessionBody & { message: string; error: string }>('GET', `${server.url}/api/checkout/sessions/${id}`, {
    headers: who.keys,
  });

beforeAll(async () => {
  server = await startServer({ workers: false });
  merchant = await createMerchant(server);
  other = await createMerchant(server, 'Other Merchant');
});
afterAll(() => server?.close());

describe('POST /api/checkout/sessions', () => {
  it('opens a session: 201, status open, its page url, expiring in an hour by default', async () => {
    const before = Date.now();
    const res = await create(sessionInput());
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ status: 'open', saleId: null, amountCents: 9980 });
    expect(res.body.url).toBe(`${server.runtime.platform.config.publicUrl}/checkout/${res.body.id}`);
    const expires = Date.parse(res.body.expiresAt);
    expect(expires).toBeGreaterThanOrEqual(before + 3599_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 3601_000);
    const shorter = await create(sessionInput({ expiresIn: 300 }));
    expect(Date.parse(shorter.body.expiresAt)).toBeLessThanOrEqual(Date.now() + 301_000);
  });

  it.each([
    ['no amount', { amountCents: undefined }, 'amountCents'],
    ['an amount of 0', { amountCents: 0 }, 'amountCents'],
    ['no items', { items: [] }, 'items'],
    ['no successUrl', { successUrl: undefined }, 'successUrl'],
    ['a successUrl that is no URL', { successUrl: 'obrigado' }, 'successUrl'],
    ['a cancelUrl that is not http', { cancelUrl: 'ftp://loja.example.com' }, 'cancelUrl'],
    ['expiresIn below 300', { expiresIn: 299 }, 'expiresIn'],
    ['expiresIn above 86400', { expiresIn: 86401 }, 'expiresIn'],
    ['a customer with a wrong CPF', { customer: { document: '529.982.247-24' } }, 'customer.document'],
    ['a customer with a bad email', { customer: { email: 'maria' } }, 'customer.email'],
    ['no methods', { methods: [] }, 'methods'],
    [
      'an amount beyond what a boleto carries, boleto offered',
      {
        amountCents: 10_000_000_000,
        items: [{ title: 'Lote', unitPrice: 10_000_000_000, quantity: 1, tangible: true }],
        methods: ['BOLETO'],
      },
      'amountCents',
    ],
  ])('refuses %s: 400 shape D naming the field, nothing written', async (_, overrides, field) => {
    const before = await countRows(server, 'checkout_sessions');
    const res = await create(sessionInput(overrides));
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ error: 'VALIDATION_ERROR', message: expect.stringContaining(field) });
    expect(await countRows(server, 'checkout_sessions')).toBe(before);
  });
});

describe('GET /api/checkout/sessions/{id}', () => {
  it('reads the session; another account’s, an unknown or malformed id is 404', async () => {
    const session = await createSession(server, merchant);
    const res = await get(session.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(session);
    for (const [id, who] of [
      [session.id, other],
      ['0b6f1c3e-5a8e-4c6a-9d1b-2f6f0d3a8e41', merchant],
      ['123', merchant],
    ] as const) {
      const missing = await get(id, who);
      expect(missing.status, id).toBe(404);
      expect(missing.body).toEqual({ error: 'NOT_FOUND', message: 'Checkout session not found' });
    }
  });

  it('says expired once expiresAt has passed', async () => {
    const session = await createSession(server, merchant, { expiresIn: 300 });
    await server.runtime.platform.db.query(
      `UPDATE checkout_sessions SET expires_at = now() - interval '1 second' WHERE id = $1`,
      [session.id],
    );
    expect((await get(session.id)).body.status).toBe('expired');
  });
});
