import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let m: TestMerchant;

beforeAll(async () => {
  server = await startServer();
  m = await createMerchant(server);
});
afterAll(() => server?.close());

interface Day {
  date: string;
  salesPaidCents: number;
  withdrawalsCents: number;
}

const daily = async (query = '') =>
  call<{ days: Day[] }>('GET', `${server.url}/api/overview/daily${query}`, { headers: m.panel });

describe('GET /api/overview/daily', () => {
  it("lists every one of the last 30 São Paulo days, today's paid sales and completed withdrawals in it", async () => {
    const sale = await call<{ id: number }>('POST', `${server.url}/api/sandbox/sales`, {
      headers: m.keys,
      body: {
        amount: 50_000,
        paymentMethod: 'PIX',
        customer: { name: 'Ana', email: 'ana@example.com', document: '52998224725', phone: '11987654321' },
        items: [{ title: 'Curso', unitPrice: 50_000, quantity: 1, tangible: false }],
      },
    });
    expect(sale.status, sale.text).toBe(201);
    const paid = await call('POST', `${server.url}/api/sandbox/sales/${sale.body.id}/status`, {
      headers: m.keys,
      body: { status: 'PAGO' },
    });
    expect(paid.status, paid.text).toBe(200);
    const w = await call<{ id: number }>('POST', `${server.url}/api/public/cashout`, {
      headers: m.keys,
      body: { amount: 150, pixKey: '52998224725' },
    });
    expect(w.status, w.text).toBe(201);
    // the payout worker submits it; the sandbox provider is then told to pay it
    await expect
      .poll(
        async () => {
          const res = await call('POST', `${server.url}/api/sandbox/cashouts/${w.body.id}/result`, {
            headers: m.keys,
            body: { result: 'COMPLETED' },
          });
          return res.status;
        },
        { timeout: 20_000 },
      )
      .toBe(200);

    const res = await daily();
    expect(res.status, res.text).toBe(200);
    expect(res.body.days).toHaveLength(30);
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(new Date());
    expect(res.body.days.at(-1)!.date).toBe(today);
    expect(res.body.days.at(-1)!.salesPaidCents).toBeGreaterThan(0);
    expect(res.body.days.at(-1)!.withdrawalsCents).toBe(15_000);
    expect(res.body.days.slice(0, -1).every((d) => d.salesPaidCents === 0 && d.withdrawalsCents === 0)).toBe(
      true,
    );
    expect((await daily('?days=7')).body.days).toHaveLength(7);
    expect((await daily('?days=0')).status).toBe(400);
  });
});
