import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moveTo, saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { fundMerchant } from '../support/ledger.js';
import { startServer, type TestServer } from '../support/server.js';
import { createRecipient } from './fixtures.js';

let server: TestServer;
let platform: TestMerchant;
let other: TestMerchant;

beforeAll(async () => {
  server = await startServer({ workers: false });
  platform = await createMerchant(server, 'Marketplace');
  other = await createMerchant(server, 'Outra loja');
  await fundMerchant(server.runtime.platform.db, platform.accountId, 100_000);
});
afterAll(() => server?.close());

interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

describe("the panel's recipients (Recebedores)", () => {
  it('lists them with balances, and each one’s sales and withdrawals (the account’s own list keeps its own)', async () => {
    const ana = await createRecipient(server, platform);
    const joao = await createRecipient(server, platform, { name: 'Seu João', transferInterval: 'daily' });
    const sale = await call<{ uuid: string }>('POST', `${server.url}/api/transactions`, {
      headers: platform.keys,
      body: saleInput({
        amount: 40_000,
        items: [{ title: 'Pedido', unitPrice: 40_000, quantity: 1, tangible: false }],
        split: [{ recipientId: ana.id, amountCents: 30_000 }],
      }),
    });
    expect(sale.status, sale.text).toBe(201);
    expect((await moveTo(server, platform, sale.body.uuid, 'PAGO')).status).toBe(200);
    const plain = await call<{ uuid: string }>('POST', `${server.url}/api/transactions`, {
      headers: platform.keys,
      body: saleInput(),
    });
    expect(plain.status).toBe(201);
    const cashout = await call<{ uuid: string }>('POST', `${server.url}/api/recipients/${ana.id}/cashout`, {
      headers: platform.keys,
      body: { amount: 100 },
    });
    expect(cashout.status, cashout.text).toBe(201);
    const own = await call<{ uuid: string }>('POST', `${server.url}/api/public/cashout`, {
      headers: platform.keys,
      body: { amount: 100, pixKey: '52998224725' },
    });
    expect(own.status, own.text).toBe(201);

    const list = await call<Page<{ id: string; name: string; transferInterval: string; balance: unknown }>>(
      'GET',
      `${server.url}/api/panel/recipients`,
      { headers: platform.panel },
    );
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.map((r) => [r.name, r.transferInterval, r.balance])).toEqual([
      ['Seu João', 'daily', { available: 0, blocked: 0, receivable: 0, total: 0 }],
      ['Loja da Ana', 'manual', { available: 20_000, blocked: 10_000, receivable: 0, total: 30_000 }],
    ]);
    expect(joao.id).toBe(list.body.data[0]!.id);
    const shown = list.body.data[1] as unknown as { document: string; pixKey: string };
    expect([shown.document, shown.pixKey]).toEqual(['*******4725', 'ana@example.com']); // as other lists mask
    const cpfKeyed = await createRecipient(server, platform, {
      name: 'Chave CPF',
      document: '52998224725',
      pixKey: '52998224725',
      pixKeyType: 'CPF',
    });
    const again = await call<Page<{ id: string; document: string; pixKey: string }>>(
      'GET',
      `${server.url}/api/panel/recipients?limit=1`,
      { headers: platform.panel },
    );
    expect(again.body.data.map((r) => [r.id, r.document, r.pixKey])).toEqual([
      [cpfKeyed.id, '*******4725', '*******4725'],
    ]);
    const whole = await call<{ document: string }>('GET', `${server.url}/api/recipients/${cpfKeyed.id}`, {
      headers: platform.keys,
    });
    expect(whole.body.document).toBe('52998224725'); // the integrator's API keeps it

    const sales = await call<Page<{ uuid: string }>>('GET', `${server.url}/api/sales?recipientId=${ana.id}`, {
      headers: platform.panel,
    });
    expect(sales.status, sales.text).toBe(200);
    expect(sales.body.data.map((s) => s.uuid)).toEqual([sale.body.uuid]);
    const none = await call<Page<unknown>>('GET', `${server.url}/api/sales?recipientId=${joao.id}`, {
      headers: platform.panel,
    });
    expect(none.body.data).toEqual([]);

    const withdrawals = await call<Page<{ uuid: string; recipientId?: string }>>(
      'GET',
      `${server.url}/api/withdrawals?recipientId=${ana.id}`,
      { headers: platform.panel },
    );
    expect(withdrawals.status, withdrawals.text).toBe(200);
    expect(withdrawals.body.data.map((w) => [w.uuid, w.recipientId])).toEqual([[cashout.body.uuid, ana.id]]);
    const accountOwn = await call<Page<{ uuid: string }>>('GET', `${server.url}/api/withdrawals`, {
      headers: platform.panel,
    });
    expect(accountOwn.body.data.map((w) => w.uuid)).toEqual([own.body.uuid]);

    // another account sees none of them, and cannot filter by them
    const theirs = await call<Page<unknown>>('GET', `${server.url}/api/panel/recipients`, {
      headers: other.panel,
    });
    expect(theirs.body.data).toEqual([]);
    const foreign = await call('GET', `${server.url}/api/sales?recipientId=${ana.id}`, {
      headers: other.panel,
    });
    expect(foreign.status).toBe(400);
    expect(foreign.text).toContain(`recipientId ${ana.id} is not one of this account's recipients`);
    const foreignW = await call<Page<unknown>>('GET', `${server.url}/api/withdrawals?recipientId=${ana.id}`, {
      headers: other.panel,
    });
    expect(foreignW.body.data).toEqual([]);
    const noSession = await call('GET', `${server.url}/api/panel/recipients`);
    expect(noSession.status).toBe(401);
  });
});
