import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { eventsOf, moveTo, type SaleBody, saleInput } from './fixtures.js';

/** Integrators, round three: sales listed, refunds as objects and pending charges cancelled with API keys. */
let server: TestServer;
let m: TestMerchant;
let other: TestMerchant;

beforeAll(async () => {
  server = await startServer({ workers: false });
  m = await createMerchant(server, 'Lista');
  other = await createMerchant(server, 'Outra');
});
afterAll(() => server?.close());

const charge = async (who: TestMerchant, overrides: Record<string, unknown> = {}) => {
  const res = await call<SaleBody>('POST', `${server.url}/api/transactions`, {
    headers: who.keys,
    body: saleInput(overrides),
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
};

interface Page {
  data: SaleBody[];
  nextCursor: string | null;
}

describe('GET /api/transactions', () => {
  it('lists the account’s sales newest first in cursor pages, filtered; never another account’s', async () => {
    const made: SaleBody[] = [];
    for (let i = 0; i < 5; i++) made.push(await charge(m, { amount: 1000 + i }));
    await charge(other);
    expect((await moveTo(server, m, made[1]!.uuid, 'PAGO')).status).toBe(200);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: Page } = await call<Page>(
        'GET',
        `${server.url}/api/transactions?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { headers: m.keys },
      );
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((s) => s.uuid));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(made.map((s) => s.uuid).reverse());

    const paid = await call<Page>('GET', `${server.url}/api/transactions?status=PAGO`, { headers: m.keys });
    expect(paid.body.data.map((s) => s.uuid)).toEqual([made[1]!.uuid]);
    const pix = await call<Page>('GET', `${server.url}/api/transactions?paymentMethod=BOLETO`, {
      headers: m.keys,
    });
    expect(pix.body.data).toEqual([]);
    for (const bad of ['limit=0', 'limit=101', 'status=PAID', 'paymentMethod=CASH', 'from=ontem']) {
      const res = await call('GET', `${server.url}/api/transactions?${bad}`, { headers: m.keys });
      expect(res.status, bad).toBe(400);
      expect(res.body, bad).toMatchObject({ error: 'VALIDATION_ERROR' });
    }
    expect((await call('GET', `${server.url}/api/transactions`)).status).toBe(401);
  });
});

describe('refunds as objects', () => {
  it('GET /api/transactions/{id}/refunds lists each refund with its status; another account’s sale → 403', async () => {
    const sale = await charge(m, { amount: 10000 });
    expect((await moveTo(server, m, sale.uuid, 'PAGO')).status).toBe(200);
    for (const amountCents of [2000, 3000]) {
      const res = await call('POST', `${server.url}/api/transactions/${sale.uuid}/refund`, {
        headers: m.keys,
        body: { amountCents },
      });
      expect(res.status, res.text).toBe(202);
    }
    const list = await call<{ id: string; amountCents: number; status: string }[]>(
      'GET',
      `${server.url}/api/transactions/${sale.uuid}/refunds`,
      { headers: m.keys },
    );
    expect(list.status).toBe(200);
    expect(list.body.map((r) => r.amountCents)).toEqual([2000, 3000]);
    for (const r of list.body) {
      expect(r).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        amountCents: r.amountCents,
        status: expect.stringMatching(/^(pending|succeeded|failed)$/),
        reason: null,
        createdAt: expect.any(String),
        completedAt: r.status === 'pending' ? null : expect.any(String),
        // who paid: the account alone (no split), its part and the fee given back adding up to the refund
        allocation: [
          {
            party: 'platform',
            amountCents: expect.any(Number),
            fromReceivableCents: 0,
            fromAvailableCents: expect.any(Number),
          },
        ],
        feeReturnedCents: expect.any(Number),
      });
      expect(
        (r as unknown as { feeReturnedCents: number }).feeReturnedCents +
          (r as unknown as { allocation: { amountCents: number }[] }).allocation[0]!.amountCents,
      ).toBe(r.amountCents);
    }
    const foreign = await call('GET', `${server.url}/api/transactions/${sale.uuid}/refunds`, {
      headers: other.keys,
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({ error: 'FORBIDDEN' });
    const none = await call('GET', `${server.url}/api/transactions/999999999/refunds`, { headers: m.keys });
    expect(none.status).toBe(404);
  });
});

describe('POST /api/transactions/{id}/cancel', () => {
  it('cancels a PENDENTE PIX sale: 200 CANCELADO and sale.canceled; any other status → 409 INVALID_STATUS (shape D)', async () => {
    const sale = await charge(m);
    const res = await call<SaleBody>('POST', `${server.url}/api/transactions/${sale.uuid}/cancel`, {
      headers: m.keys,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ uuid: sale.uuid, status: 'CANCELADO' });
    expect((await eventsOf(server, 'sale', sale.id)).map((e) => e.event_type)).toEqual([
      'sale.pending',
      'sale.canceled',
    ]);
    const again = await call('POST', `${server.url}/api/transactions/${sale.uuid}/cancel`, {
      headers: m.keys,
    });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: 'INVALID_STATUS', message: expect.stringContaining('CANCELADO') });

    const paid = await charge(m);
    expect((await moveTo(server, m, paid.uuid, 'PAGO')).status).toBe(200);
    const refused = await call('POST', `${server.url}/api/transactions/${paid.uuid}/cancel`, {
      headers: m.keys,
    });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'INVALID_STATUS' });
    const foreign = await call('POST', `${server.url}/api/transactions/${paid.uuid}/cancel`, {
      headers: other.keys,
    });
    expect(foreign.status).toBe(403);
  });

  it('the panel cancels too (sales.create); another account’s sale is 404 there', async () => {
    const sale = await charge(m);
    const res = await call<SaleBody>('POST', `${server.url}/api/transactions/${sale.uuid}/cancel`, {
      headers: m.panel,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.status).toBe('CANCELADO');
    const foreign = await charge(other);
    const hidden = await call('POST', `${server.url}/api/transactions/${foreign.uuid}/cancel`, {
      headers: m.panel,
    });
    expect(hidden.status).toBe(404);
  });
});

describe('one document check everywhere', () => {
  it('a CPF or CNPJ with wrong check digits → 400 on the API, the panel, the sandbox and a checkout session', async () => {
    const before = await server.runtime.platform.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM sales',
    );
    for (const document of ['12345678900', '529.982.247-24', '11222333000180', '11111111111']) {
      const customer = { name: 'Ana', email: 'ana@example.com', document, phone: '5511987654321' };
      const api = await call('POST', `${server.url}/api/transactions`, {
        headers: m.keys,
        body: saleInput({ customer }),
      });
      expect(api.status, document).toBe(400);
      expect(api.body).toMatchObject({
        error: 'VALIDATION_ERROR',
        message: expect.stringContaining('check digits'),
      });
      const panel = await call('POST', `${server.url}/api/sales`, {
        headers: m.panel,
        body: saleInput({ customer }),
      });
      expect(panel.status, document).toBe(400);
      const sandbox = await call('POST', `${server.url}/api/sandbox/sales`, {
        headers: m.keys,
        body: saleInput({ customer }),
      });
      expect(sandbox.status, document).toBe(400);
      const session = await call('POST', `${server.url}/api/checkout/sessions`, {
        headers: m.keys,
        body: {
          amountCents: 1000,
          items: [{ title: 'Camiseta', unitPrice: 1000, quantity: 1, tangible: true }],
          methods: ['PIX'],
          successUrl: 'https://loja.example.com/ok',
          customer: { document },
        },
      });
      expect(session.status, document).toBe(400);
    }
    const after = await server.runtime.platform.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM sales',
    );
    expect(after).toEqual(before);
  });
});
