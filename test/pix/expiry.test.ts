import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevPsp } from '../../src/devpsp/server.js';
import { getBalance } from '../../src/ledger/ledger.js';
import { PixApiClient } from '../../src/payment-standards/pix-api-client.js';
import { BcbProcessor } from '../../src/pix/adapter.js';
import { cancelExpiredCharges } from '../../src/sales/charges.js';
import { eventsOf, type SaleBody, saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { pspProblems } from '../support/pix-openapi.js';
import { freePort } from '../support/ports.js';
import { startBcbGateway } from '../support/psp.js';
import type { TestServer } from '../support/server.js';

let psp: DevPsp;
let server: TestServer;
let merchant: TestMerchant;
const clients: PixApiClient[] = [];

const db = () => server.runtime.platform.db;
const charge = async () => {
  const res = await call<SaleBody>('POST', `${server.url}/api/transactions`, {
    headers: merchant.keys,
    body: saleInput({ amount: 2500 }),
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
};
const statusOf = async (id: number) =>
  (await db().query<{ status: string }>('SELECT status FROM sales WHERE id = $1', [id]))[0]!.status;
const expire = (id: number) =>
  db().query(`UPDATE sales SET charge_expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
/** The expiry worker's round, with the bcb processor the workers build (optionally pointed elsewhere). */
const expiryRound = (apiUrl?: string) => {
  const settings = server.runtime.platform.config.bcb!;
  const at = apiUrl ? { ...settings, apiUrl, oauthUrl: `${apiUrl}/oauth/token` } : settings;
  const client = new PixApiClient(at, 2000);
  clients.push(client);
  const bcb = new BcbProcessor(client, at, db(), server.runtime.platform.queue);
  return cancelExpiredCharges(db(), server.runtime.platform.queue, new Map([[bcb.name, bcb]]));
};

beforeAll(async () => {
  ({ psp, server } = await startBcbGateway());
  merchant = await createMerchant(server);
});
afterAll(async () => {
  const problems = pspProblems(psp);
  for (const c of clients) await c.close();
  await server?.close();
  await psp?.close();
  expect(problems).toEqual([]);
});

describe('expired bcb charges are read back before they are cancelled', () => {
  it('a charge paid whose webhook never arrived ends PAGO after its expiry, credited once', async () => {
    const sale = await charge();
    const before = await getBalance(db(), merchant.accountId);
    const pix = await psp.pay(sale.externalTransactionId, { times: 0 }); // paid, webhook lost
    await new Promise((resolve) => setTimeout(resolve, 50)); // learned of later than it was paid
    await expire(sale.id);
    expect(await expiryRound()).toBe(0);
    expect(await statusOf(sale.id)).toBe('PAGO');
    // completedAt is when the Pix was paid, not when the gateway read it back
    const paid = await call<{ completedAt: string }>('GET', `${server.url}/api/transactions/${sale.uuid}`, {
      headers: merchant.keys,
    });
    expect(paid.body.completedAt).toBe(new Date(pix.horario).toISOString());
    expect(psp.state.log).toContain(`GET /cob/${sale.externalTransactionId}`);
    // the late webhook, then another round: nothing more
    await call('POST', `${server.url}/api/providers/bcb/webhook/pix`, {
      body: { pix: [{ endToEndId: pix.endToEndId, txid: sale.externalTransactionId, valor: '25.00' }] },
    });
    expect(await expiryRound()).toBe(0);
    expect((await getBalance(db(), merchant.accountId)).total - before.total).toBe(sale.netAmount);
    expect((await eventsOf(server, 'sale', sale.id)).map((e) => e.event_type)).toEqual([
      'sale.pending',
      'sale.paid',
    ]);
  });

  it('a charge paid with another amount is recorded, credits nothing and is cancelled', async () => {
    const sale = await charge();
    const pix = await psp.pay(sale.externalTransactionId, { amountCents: 2499, times: 0 });
    await expire(sale.id);
    expect(await expiryRound()).toBe(1);
    expect(await statusOf(sale.id)).toBe('CANCELADO');
    const [row] = await db().query<{ credited: boolean }>(
      'SELECT credited FROM bcb_received_pix WHERE e2eid = $1',
      [pix.endToEndId],
    );
    expect(row).toEqual({ credited: false });
  });

  it('an unpaid charge is removed at the PSP, then CANCELADO (sale.canceled)', async () => {
    const sale = await charge();
    await expire(sale.id);
    expect(await expiryRound()).toBe(1);
    expect(psp.state.log).toContain(`PATCH /cob/${sale.externalTransactionId}`);
    expect(psp.state.cobs.get(sale.externalTransactionId)!.status).toBe('REMOVIDA_PELO_USUARIO_RECEBEDOR');
    await expect(psp.pay(sale.externalTransactionId)).rejects.toThrow(/REMOVIDA/);
    expect(await statusOf(sale.id)).toBe('CANCELADO');
    expect((await eventsOf(server, 'sale', sale.id)).map((e) => e.event_type)).toEqual([
      'sale.pending',
      'sale.canceled',
    ]);
  });

  it('a PSP that is down or failing leaves the charge PENDENTE; the next round settles it', async () => {
    const sale = await charge();
    await expire(sale.id);
    expect(await expiryRound(`https://127.0.0.1:${await freePort()}`)).toBe(0); // nothing listens there
    expect(await statusOf(sale.id)).toBe('PENDENTE');
    psp.failNext('GET /cob', { status: 503 });
    expect(await expiryRound()).toBe(0);
    expect(await statusOf(sale.id)).toBe('PENDENTE');
    psp.failNext('PATCH /cob', { status: 500 });
    expect(await expiryRound()).toBe(0);
    expect(await statusOf(sale.id)).toBe('PENDENTE');
    expect(await expiryRound()).toBe(1);
    expect(await statusOf(sale.id)).toBe('CANCELADO');
  });
});
