import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boletoInput, spDay } from '../boletos/fixtures.js';
import { createRecipient, recipientBalance } from '../recipients/fixtures.js';
import { CUSTOMER, moveTo, saleInput, sandboxSale } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let merchant: TestMerchant;
let other: TestMerchant;

beforeAll(async () => {
  server = await startServer({ workers: false });
  merchant = await createMerchant(server);
  other = await createMerchant(server, 'Other');
});
afterAll(() => server?.close());

const shapeA = (code: string) => ({ success: false, error: { code, message: expect.any(String) } });

describe('POST /api/sandbox/sales', () => {
  it('creates a PENDENTE sale (201 Sale object)', async () => {
    const res = await call<Record<string, unknown>>('POST', `${server.url}/api/sandbox/sales`, {
      headers: merchant.keys,
      body: saleInput({ postbackUrl: 'http://localhost:9999/pb' }),
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'PENDENTE',
      amount: 10000,
      netAmount: 10000,
      systemFee: 0,
      reserveAmount: 0,
    });
  });

  it("opens by the panel's door too: the session (Nova cobrança's test charge), errors in shape A", async () => {
    const res = await call<Record<string, unknown>>('POST', `${server.url}/api/sandbox/sales`, {
      headers: merchant.panel,
      body: saleInput(),
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'PENDENTE', amount: 10000 });
    const bad = await call('POST', `${server.url}/api/sandbox/sales`, {
      headers: merchant.panel,
      body: saleInput({ amount: 0 }),
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(shapeA('VALIDATION_ERROR'));
    expect((bad.body as { error: { message: string } }).error.message).toMatch(/^Invalid body\/amount: /);
  });

  it('stores document and phone as digits only', async () => {
    const s = await sandboxSale(server, merchant, {
      customer: { ...CUSTOMER, document: '529.982.247-25', phone: '+55 (11) 98765-4321' },
    });
    expect(s.customer).toEqual(CUSTOMER);
  });

  const invalid: [string, Record<string, unknown>][] = [
    ['amount missing', { amount: undefined }],
    ['amount zero', { amount: 0 }],
    ['amount fractional', { amount: 10.5 }],
    ['amount as string', { amount: '100' }],
    ['unknown payment method', { paymentMethod: 'CASH' }],
    ['PIX_AUTOMATICO outside a recurrence', { paymentMethod: 'PIX_AUTOMATICO' }],
    ['customer missing', { customer: undefined }],
    ['customer email malformed', { customer: { ...CUSTOMER, email: 'nope' } }],
    ['customer document of 12 digits', { customer: { ...CUSTOMER, document: '123456789012' } }],
    ['customer phone too short', { customer: { ...CUSTOMER, phone: '123456789x' } }],
    ['no items', { items: [] }],
    ['item without title', { items: [{ unitPrice: 1, quantity: 1, tangible: true }] }],
    ['item quantity zero', { items: [{ title: 'a', unitPrice: 1, quantity: 0, tangible: true }] }],
    ['relative postbackUrl', { postbackUrl: '/pb' }],
    ['ftp postbackUrl', { postbackUrl: 'ftp://example.com/pb' }],
    ['postbackUrl not a URL', { postbackUrl: 'not a url' }],
    ['installments on PIX', { installments: 2 }],
    ['installments above 12', { paymentMethod: 'CREDIT_CARD', installments: 13 }],
    ['card on BOLETO', { paymentMethod: 'BOLETO', card: { brand: 'VISA', lastFour: '1234' } }],
    ['card lastFour of 3 digits', { paymentMethod: 'CREDIT_CARD', card: { brand: 'VISA', lastFour: '123' } }],
    ['shipping not an object', { shipping: 'Rua A' }],
    ['unknown cartId', { cartId: 999999 }],
    ['cartId not an id', { cartId: 'abc' }],
  ];
  it.each(invalid)('400 VALIDATION_ERROR (shape A): %s', async (_name, overrides) => {
    const res = await call('POST', `${server.url}/api/sandbox/sales`, {
      headers: merchant.keys,
      body: saleInput(overrides),
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(shapeA('VALIDATION_ERROR'));
  });

  it('a body that is not JSON is a 400', async () => {
    const res = await call('POST', `${server.url}/api/sandbox/sales`, {
      headers: merchant.keys,
      body: '{nope',
    });
    expect(res.status).toBe(400);
  });

  it('a bad body writes nothing', async () => {
    const [before] = await server.runtime.platform.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM sales',
    );
    await call('POST', `${server.url}/api/sandbox/sales`, {
      headers: merchant.keys,
      body: saleInput({ cartId: 424242 }),
    });
    const [after] = await server.runtime.platform.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM sales',
    );
    expect(after!.n).toBe(before!.n);
  });
});

describe('every sandbox route refuses bad keys (401 shape A)', () => {
  const routes = [
    ['POST', '/api/sandbox/sales'],
    ['POST', '/api/sandbox/sales/1/status'],
    ['POST', '/api/sandbox/recurrences'],
    ['POST', '/api/sandbox/recurrences/RR1/cycles'],
    ['POST', '/api/sandbox/carts'],
    ['POST', '/api/sandbox/carts/1/abandon'],
  ];
  it.each(routes)('%s %s', async (method, path) => {
    for (const headers of [{}, { ...merchant.keys, 'x-api-private-key': 'sk_wrong' }]) {
      const res = await call(method, `${server.url}${path}`, { headers, body: {} });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(shapeA('UNAUTHORIZED'));
    }
  });
});

describe('POST /api/sandbox/sales/{id}/status', () => {
  it('takes the uuid or the numeric id', async () => {
    const s = await sandboxSale(server, merchant);
    expect((await moveTo(server, merchant, s.id, 'EM_PROCESSAMENTO')).body.status).toBe('EM_PROCESSAMENTO');
    expect((await moveTo(server, merchant, s.uuid, 'PAGO')).body.status).toBe('PAGO');
  });

  it("answers 404 for an unknown or another account's sale, 400 for a malformed id", async () => {
    const s = await sandboxSale(server, merchant);
    expect((await moveTo(server, other, s.uuid, 'PAGO')).status).toBe(404);
    expect((await moveTo(server, merchant, randomUUID(), 'PAGO')).status).toBe(404);
    const bad = await moveTo(server, merchant, 'abc', 'PAGO');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(shapeA('VALIDATION_ERROR'));
    const look = await call<{ status: string }>('GET', `${server.url}/api/transactions/${s.uuid}`, {
      headers: merchant.keys,
    });
    expect(look.body.status).toBe('PENDENTE');
  });

  it('pays a boleto what it asks today, by both doors: less its discount before the discount date', async () => {
    for (const door of ['api', 'panel'] as const) {
      const created = await call<{ uuid: string }>('POST', `${server.url}/api/transactions`, {
        headers: merchant.keys,
        body: boletoInput({}, { discount: { amountCents: 700, untilDate: spDay(1) } }),
      });
      expect(created.status, created.text).toBe(201);
      const paid =
        door === 'api'
          ? await moveTo(server, merchant, created.body.uuid, 'PAGO')
          : await call<{ status: string }>(
              'POST',
              `${server.url}/api/sales/${created.body.uuid}/simulate-payment`,
              { headers: merchant.panel },
            );
      expect(paid.status, paid.text).toBe(200);
      const sale = await call<{ status: string; paidAmount: number; systemFee: number; netAmount: number }>(
        'GET',
        `${server.url}/api/transactions/${created.body.uuid}`,
        { headers: merchant.keys },
      );
      expect(sale.body, door).toMatchObject({ status: 'PAGO', paidAmount: 9300 });
      expect(sale.body.systemFee + sale.body.netAmount).toBe(9300);
    }
  });

  it('moves a sale to ESTORNADO (a refund in full) only by a "full" key, as the refund route: 403 and nothing refunded otherwise', async () => {
    const made = await call<{ publicKey: string; privateKey: string }>(
      'POST',
      `${server.url}/api/credentials`,
      { headers: merchant.panel, body: { name: 'só cobranças', scope: 'charges' } },
    );
    expect(made.status, made.text).toBe(201);
    const charges = { 'x-api-public-key': made.body.publicKey, 'x-api-private-key': made.body.privateKey };
    const sale = await sandboxSale(server, merchant);
    expect((await moveTo(server, merchant, sale.uuid, 'PAGO')).status).toBe(200);
    const refused = await call('POST', `${server.url}/api/sandbox/sales/${sale.uuid}/status`, {
      headers: charges,
      body: { status: 'ESTORNADO' },
    });
    expect(refused.status, refused.text).toBe(403);
    // a key refused by its scope: shape D, as every scope refusal (Part 5, keys bounded by their creator)
    expect(refused.body).toEqual({
      error: 'FORBIDDEN',
      message: expect.stringContaining('needs a "full" key'),
    });
    const look = await call<{ status: string }>('GET', `${server.url}/api/transactions/${sale.uuid}`, {
      headers: merchant.keys,
    });
    expect(look.body.status).toBe('PAGO');
    // the sale's other moves stay the charges key's
    const other = await sandboxSale(server, merchant);
    const paid = await call('POST', `${server.url}/api/sandbox/sales/${other.uuid}/status`, {
      headers: charges,
      body: { status: 'PAGO' },
    });
    expect(paid.status, paid.text).toBe(200);
    // a full key refunds it
    expect((await moveTo(server, merchant, sale.uuid, 'ESTORNADO')).status).toBe(200);
  });

  it('a refund in full racing the payment that settles the sale is a refund (its admission and rows), never a bare move', async () => {
    let refunded = 0;
    for (let round = 0; round < 12; round++) {
      const s = await sandboxSale(server, merchant, { amount: 1000 + round });
      const [paid, refund] = await Promise.all([
        moveTo(server, merchant, s.uuid, 'PAGO'),
        moveTo(server, merchant, s.uuid, 'ESTORNADO'),
      ]);
      expect(paid.status, paid.text).toBe(200);
      // before the payment: nothing to refund yet (409); after, or as it settles: refunded as the refund route does
      expect([200, 409], refund.text).toContain(refund.status);
      const look = await call<{ status: string; refundedAmount: number }>(
        'GET',
        `${server.url}/api/transactions/${s.uuid}`,
        { headers: merchant.keys },
      );
      const refunds = await call<{ status: string; amountCents: number }[]>(
        'GET',
        `${server.url}/api/transactions/${s.uuid}/refunds`,
        { headers: merchant.keys },
      );
      const made = refunds.body.filter((r) => r.status === 'succeeded');
      if (look.body.status === 'ESTORNADO') {
        refunded++;
        expect(
          made.reduce((sum, r) => sum + r.amountCents, 0),
          `round ${round}`,
        ).toBe(1000 + round);
      } else {
        expect(look.body.status).toBe('PAGO');
        expect(made).toEqual([]);
      }
      expect(look.body.refundedAmount).toBe(made.reduce((sum, r) => sum + r.amountCents, 0));
    }
    expect(refunded).toBeGreaterThan(0);
  });

  it('answers 400 for an unknown status', async () => {
    const s = await sandboxSale(server, merchant);
    const res = await moveTo(server, merchant, s.uuid, 'PAID');
    expect(res.status).toBe(400);
    expect(res.body).toEqual(shapeA('VALIDATION_ERROR'));
  });

  it('serializes concurrent moves of one sale: exactly one PAGO is applied', async () => {
    const s = await sandboxSale(server, merchant, { amount: 777 });
    const before = await call<{ available: number }>('GET', `${server.url}/api/public/balance`, {
      headers: merchant.keys,
    });
    const results = await Promise.all(
      Array.from({ length: 10 }, () => moveTo(server, merchant, s.uuid, 'PAGO')),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const after = await call<{ available: number }>('GET', `${server.url}/api/public/balance`, {
      headers: merchant.keys,
    });
    expect(after.body.available - before.body.available).toBe(777);
    const [paid] = await server.runtime.platform.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM notification_events WHERE subject_id = $1 AND event_type = 'sale.paid'`,
      [s.id],
    );
    expect(paid!.n).toBe(1);
  });

  it('takes a split as any charge does: checked (400 shape A, nothing stored), carried, shared when paid', async () => {
    const recipient = await createRecipient(server, merchant);
    const count = async () =>
      (await server.runtime.platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM sales'))[0]!.n;
    const before = await count();
    for (const split of [
      [{ recipientId: recipient.id, percent: 200 }],
      [{ recipientId: randomUUID(), percent: 10 }],
      [{ recipientId: recipient.id, amountCents: 10001 }],
    ]) {
      const refused = await call('POST', `${server.url}/api/sandbox/sales`, {
        headers: merchant.keys,
        body: saleInput({ split }),
      });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body).toEqual(shapeA('VALIDATION_ERROR'));
    }
    // no TRANSFER takes one
    const transfer = await call('POST', `${server.url}/api/sandbox/sales`, {
      headers: merchant.keys,
      body: saleInput({ paymentMethod: 'TRANSFER', split: [{ recipientId: recipient.id, percent: 10 }] }),
    });
    expect(transfer.status, transfer.text).toBe(400);
    expect(await count()).toBe(before);
    const made = await call<{ uuid: string; split: { recipientId: string | null; netCents: number }[] }>(
      'POST',
      `${server.url}/api/sandbox/sales`,
      { headers: merchant.keys, body: saleInput({ split: [{ recipientId: recipient.id, percent: 30 }] }) },
    );
    expect(made.status, made.text).toBe(201);
    expect(made.body.split.map((p) => [p.recipientId, p.netCents])).toEqual([
      [recipient.id, 3000],
      [null, 7000],
    ]);
    expect((await moveTo(server, merchant, made.body.uuid, 'PAGO')).status).toBe(200);
    expect((await recipientBalance(server, merchant, recipient.id)).available).toBe(3000);
  });
});
