import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUSTOMER, eventsOf, moveTo, sandboxSale } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let merchant: TestMerchant;

interface Cart {
  id: number;
  uuid: string;
  userId: number;
  status: string;
  amount: number;
  saleId: number | null;
  createdAt: string;
}

beforeAll(async () => {
  server = await startServer({ workers: false });
  merchant = await createMerchant(server);
});
afterAll(() => server?.close());

const ITEMS = [
  { title: 'Camiseta', unitPrice: 5990, quantity: 2, tangible: true },
  { title: 'Ebook', unitPrice: 1000, quantity: 1, tangible: false },
];

async function newCart(m = merchant): Promise<Cart> {
  const res = await call<Cart>('POST', `${server.url}/api/sandbox/carts`, {
    headers: m.keys,
    body: { customer: CUSTOMER, items: ITEMS },
  });
  expect(res.status).toBe(201);
  return res.body;
}
const abandon = (id: string | number, m = merchant) =>
  call<Cart>('POST', `${server.url}/api/sandbox/carts/${id}/abandon`, { headers: m.keys });

describe('sandbox carts', () => {
  it('creates an OPEN cart and records no event', async () => {
    const cart = await newCart();
    expect(cart).toEqual({
      id: expect.any(Number),
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      userId: merchant.accountId,
      status: 'OPEN',
      customer: CUSTOMER,
      items: ITEMS,
      amount: 12980,
      saleId: null,
      createdAt: expect.any(String),
    });
    expect(await eventsOf(server, 'cart', cart.id)).toEqual([]);
  });

  it('abandon fires cart.abandoned once, with the documented body; by uuid or id', async () => {
    const cart = await newCart();
    const res = await abandon(cart.uuid);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ABANDONED');
    expect((await abandon(cart.id)).status).toBe(200);
    const events = await eventsOf(server, 'cart', cart.id);
    expect(events.map((e) => e.event_type)).toEqual(['cart.abandoned']);
    expect(events[0]!.postback_url).toBeNull();
    expect(events[0]!.webhook_body).toBe(
      JSON.stringify({
        id: cart.id,
        uuid: cart.uuid,
        userId: merchant.accountId,
        status: 'ABANDONED',
        customerName: CUSTOMER.name,
        customerEmail: CUSTOMER.email,
        customerDocument: CUSTOMER.document,
        customerPhone: CUSTOMER.phone,
        items: ITEMS.map((i) => ({ ...i, unitPrice: String(i.unitPrice) })),
        amount: '12980',
        createdAt: cart.createdAt,
        saleId: null,
        saleUuid: null,
        type: 'CART',
        eventType: 'cart.abandoned',
      }),
    );
  });

  it('a sale from an abandoned cart that reaches PAGO fires cart.recovered once', async () => {
    const cart = await newCart();
    await abandon(cart.id);
    const sale = await sandboxSale(server, merchant, { cartId: cart.uuid, amount: 12980 });
    await moveTo(server, merchant, sale.uuid, 'EM_PROCESSAMENTO');
    expect((await eventsOf(server, 'cart', cart.id)).map((e) => e.event_type)).toEqual(['cart.abandoned']);
    await moveTo(server, merchant, sale.uuid, 'PAGO');
    await moveTo(server, merchant, sale.uuid, 'MED');
    await moveTo(server, merchant, sale.uuid, 'PAGO');
    const events = await eventsOf(server, 'cart', cart.id);
    expect(events.map((e) => e.event_type)).toEqual(['cart.abandoned', 'cart.recovered']);
    expect(JSON.parse(events[1]!.webhook_body)).toMatchObject({
      status: 'RECOVERED',
      saleId: sale.id,
      saleUuid: sale.uuid,
      type: 'CART',
    });
    expect((await abandon(cart.id)).status).toBe(409);
  });

  it('a cart that was never abandoned fires nothing when its sale is paid; a refused sale recovers nothing', async () => {
    const open = await newCart();
    const sale = await sandboxSale(server, merchant, { cartId: open.id });
    await moveTo(server, merchant, sale.uuid, 'PAGO');
    expect(await eventsOf(server, 'cart', open.id)).toEqual([]);
    const late = await abandon(open.id);
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ success: false, error: { code: 'CONFLICT' } });

    const abandoned = await newCart();
    await abandon(abandoned.id);
    const refused = await sandboxSale(server, merchant, { cartId: abandoned.id });
    await moveTo(server, merchant, refused.uuid, 'RECUSADO');
    expect((await eventsOf(server, 'cart', abandoned.id)).map((e) => e.event_type)).toEqual([
      'cart.abandoned',
    ]);
  });

  it("another account's cart is 404 and cannot be used for a sale", async () => {
    const cart = await newCart();
    const other = await createMerchant(server, 'Other');
    expect((await abandon(cart.id, other)).status).toBe(404);
    const res = await call('POST', `${server.url}/api/sandbox/sales`, {
      headers: other.keys,
      body: { amount: 100, paymentMethod: 'PIX', customer: CUSTOMER, items: ITEMS, cartId: cart.id },
    });
    expect(res.status).toBe(400);
    expect((await abandon('xyz')).status).toBe(400);
  });

  it('validates the cart body', async () => {
    for (const body of [
      {},
      { customer: CUSTOMER, items: [] },
      { customer: { ...CUSTOMER, email: 'x' }, items: ITEMS },
    ]) {
      const res = await call('POST', `${server.url}/api/sandbox/carts`, { headers: merchant.keys, body });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    }
  });
});

describe('text with a NUL character', () => {
  it('is a 400 in shape A and writes no cart', async () => {
    const { db } = server.runtime.platform;
    const count = async () =>
      (
        await db.query<{ n: number }>('SELECT count(*)::int AS n FROM carts WHERE account_id = $1', [
          merchant.accountId,
        ])
      )[0]!.n;
    const before = await count();
    const res = await call('POST', `${server.url}/api/sandbox/carts`, {
      headers: merchant.keys,
      body: { customer: { ...CUSTOMER, name: 'Ana\u0000Souza' }, items: ITEMS },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: { code: 'VALIDATION_ERROR', message: expect.any(String) },
    });
    expect(await count()).toBe(before);
  });
});

describe('postbackUrl', () => {
  it('follows the webhook URL rules: no credentials, no control characters', async () => {
    for (const postbackUrl of [
      'http://user:pass@example.com/pb',
      'http://example.com/a\u0000b',
      'ftp://example.com/x',
    ]) {
      const res = await call('POST', `${server.url}/api/sandbox/sales`, {
        headers: merchant.keys,
        body: { amount: 1000, paymentMethod: 'PIX', customer: CUSTOMER, items: ITEMS.slice(1), postbackUrl },
      });
      expect(res.status, postbackUrl).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    }
  });
});
