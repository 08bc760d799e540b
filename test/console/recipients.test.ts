import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecipient } from '../recipients/fixtures.js';
import { moveTo, saleInput } from '../sales/fixtures.js';
import { createMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { createOperator, type TestOperator } from '../support/operators.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let support: TestOperator;

beforeAll(async () => {
  server = await startServer({ workers: false });
  support = await createOperator(server, 'support');
});
afterAll(() => server?.close());

describe("the console's account page and split payments", () => {
  it("lists an account's recipients with their balances (support may read), and none of another account's", async () => {
    const platform = await createMerchant(server, 'Marketplace');
    const other = await createMerchant(server, 'Outra');
    const ana = await createRecipient(server, platform, { name: 'Ana', transferInterval: 'daily' });
    await createRecipient(server, other, { name: 'De outro' });
    const sale = await call<{ uuid: string }>('POST', `${server.url}/api/transactions`, {
      headers: platform.keys,
      body: saleInput({ amount: 10000, split: [{ recipientId: ana.id, amountCents: 2500 }] }),
    });
    expect(sale.status, sale.text).toBe(201);
    await moveTo(server, platform, sale.body.uuid, 'PAGO');
    const page = await call<{
      recipients: { id: string; name: string; transferInterval: string; balance: object }[];
    }>('GET', `${server.url}/api/ops/accounts/${platform.accountId}`, { headers: support.ops });
    expect(page.status, page.text).toBe(200);
    expect(page.body.recipients).toEqual([
      expect.objectContaining({
        id: ana.id,
        name: 'Ana',
        transferInterval: 'daily',
        active: true,
        balance: { available: 2500, blocked: 0, receivable: 0, total: 2500 },
      }),
    ]);
    const none = await call<{ recipients: unknown[] }>(
      'GET',
      `${server.url}/api/ops/accounts/${other.accountId}`,
      {
        headers: support.ops,
      },
    );
    expect(none.body.recipients).toHaveLength(1);
    expect(JSON.stringify(none.body.recipients)).not.toContain(ana.id);
  });
});
