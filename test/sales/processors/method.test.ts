import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PaymentMethodPort, PaymentMethods } from '../../../src/sales/processors/method.js';
import { boletoInput } from '../../boletos/fixtures.js';
import { cardBody, cardEnding } from '../../cards/cards.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { startServer, type TestServer } from '../../support/server.js';
import { waitUntil } from '../../support/wait.js';
import { eventsOf, type SaleBody, saleInput } from '../fixtures.js';

let server: TestServer;
let merchant: TestMerchant;
const db = () => server.runtime.platform.db;

const sell = (body: unknown) =>
  call<SaleBody>('POST', `${server.url}/api/transactions`, { headers: merchant.keys, body });
const cancel = (id: number) =>
  call<SaleBody & { error?: string; message?: string }>(
    'POST',
    `${server.url}/api/transactions/${id}/cancel`,
    { headers: merchant.keys },
  );
const statusOf = async (id: number) =>
  (await call<SaleBody>('GET', `${server.url}/api/transactions/${id}`, { headers: merchant.keys })).body
    .status;

async function cardSale(extra: Record<string, unknown>, number: string) {
  const token = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
    headers: { 'x-api-public-key': merchant.publicKey },
    body: cardBody(number),
  });
  expect(token.status, token.text).toBe(201);
  return sell(saleInput({ paymentMethod: 'CREDIT_CARD', card: { token: token.body.token }, ...extra }));
}

beforeAll(async () => {
  // the workers on: their round of every method's statuses is the door under test
  server = await startServer();
  merchant = await createMerchant(server);
});
afterAll(() => server?.close());

describe('the payment methods behind one port', () => {
  it('the cancel route reaches each method: a Pix cob and a boleto removed, a card authorization voided', async () => {
    const pix = await sell(saleInput());
    const boleto = await sell(boletoInput());
    const card = await cardSale({ capture: false }, cardEnding('0'));
    expect([pix.status, boleto.status, card.status]).toEqual([201, 201, 201]);
    expect(card.body.status).toBe('EM_PROCESSAMENTO');
    for (const sale of [pix, boleto, card]) {
      const res = await cancel(sale.body.id);
      expect(res.status, res.text).toBe(200);
      expect(res.body.status).toBe('CANCELADO');
    }
    // a card sale already paid is the card method's to refuse: it is refunded instead
    const paid = await cardSale({}, cardEnding('0'));
    expect(paid.body.status).toBe('PAGO');
    const refused = await cancel(paid.body.id);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('INVALID_STATUS');
    expect(refused.body.message).toContain('a paid sale is refunded instead');
  });

  it("the workers' round brings every method's sales to their processor's word", async () => {
    server.logs.expect('card authorization outcome unknown');
    const pix = await sell(saleInput({ expiresIn: 60 }));
    const boleto = await sell(boletoInput());
    const lost = await cardSale({}, cardEnding('6')); // the sandbox acquirer never answers it
    const held = await cardSale({ capture: false }, cardEnding('0'));
    expect([pix.body.status, boleto.body.status, lost.body.status, held.body.status]).toEqual([
      'PENDENTE',
      'PENDENTE',
      'PENDENTE',
      'EM_PROCESSAMENTO',
    ]);
    await db().query(`UPDATE sales SET charge_expires_at = now() - interval '1 second' WHERE id = ANY($1)`, [
      [pix.body.id, boleto.body.id],
    ]);
    await db().query(
      `UPDATE card_payments SET updated_at = now() - interval '2 minutes',
         authorized_at = authorized_at - interval '7 days 1 minute' WHERE sale_id = ANY($1)`,
      [[lost.body.id, held.body.id]],
    );
    const want = { pix: 'CANCELADO', boleto: 'CANCELADO', lost: 'FALHA', held: 'CANCELADO' };
    const now = async () => ({
      pix: await statusOf(pix.body.id),
      boleto: await statusOf(boleto.body.id),
      lost: await statusOf(lost.body.id),
      held: await statusOf(held.body.id),
    });
    // one round of the workers (every CHARGE_EXPIRY_EVERY_MS, 15 s)
    await waitUntil(
      async () => JSON.stringify(await now()) === JSON.stringify(want),
      40_000,
      () => 'every sale moved by the workers',
    );
    expect((await eventsOf(server, 'sale', boleto.body.id)).map((e) => e.event_type)).toEqual([
      'sale.pending',
      'sale.canceled',
    ]);
  });

  it('one method per sale method, and a method no processor makes is 503', async () => {
    const port = (methods: PaymentMethodPort['methods']): PaymentMethodPort => ({
      methods,
      refunders: [],
      open: () => Promise.reject(new Error('not here')),
      check: () => Promise.reject(new Error('not here')),
      cancel: () => Promise.reject(new Error('not here')),
      refreshStatuses: async () => 0,
    });
    expect(() => new PaymentMethods([port(['PIX']), port(['PIX', 'BOLETO'])])).toThrow(/two payment methods/);
    const methods = new PaymentMethods([port(['PIX'])]);
    expect(() => methods.of('BOLETO')).toThrow(/configured to issue boletos/);
    // a method whose round fails is logged; the others go on
    const failing = { ...port(['BOLETO']), refreshStatuses: () => Promise.reject(new Error('PSP down')) };
    const counted = { ...port(['PIX']), refreshStatuses: async () => 2 };
    const lines: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    expect(await new PaymentMethods([failing, counted]).refreshStatuses(log)).toBe(2);
    expect(lines.join('')).toContain('sale status refresh failed');
  });
});
