/**
 * A checkout session takes one payment: once a sale of it is paid, the worker cancels the session's other
 * charges still awaiting payment, so that a boleto issued before the payer paid by PIX cannot be paid too.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADDRESS } from '../boletos/fixtures.js';
import { createSession, PAYER, type PixPaymentBody } from '../checkout/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
import { eventsOf, moveTo } from './fixtures.js';

let server: TestServer;
let merchant: TestMerchant;

beforeAll(async () => {
  server = await startServer();
  merchant = await createMerchant(server, 'Loja da Maria');
});
afterAll(() => server?.close());

const saleOf = async (id: string) =>
  (
    await call<{ id: number; status: string }>('GET', `${server.url}/api/transactions/${id}`, {
      headers: merchant.keys,
    })
  ).body;

it('a session paid by PIX cancels the boleto the payer opened before it, which can then not be paid', async () => {
  const session = await createSession(server, merchant, { methods: ['PIX', 'BOLETO'] });
  const base = `${server.url}/api/public/checkout/${session.id}`;
  const boleto = await call<{ saleId: string }>('POST', `${base}/boleto`, {
    body: { ...PAYER, address: ADDRESS },
  });
  expect(boleto.status, boleto.text).toBe(201);
  const pix = await call<PixPaymentBody>('POST', base, { body: PAYER });
  expect(pix.status, pix.text).toBe(201);
  expect(pix.body.saleId).not.toBe(boleto.body.saleId);

  expect((await moveTo(server, merchant, pix.body.saleId, 'PAGO')).status).toBe(200);
  const cancelled = await waitUntil(async () => {
    const sale = await saleOf(boleto.body.saleId);
    return sale.status === 'CANCELADO' && sale;
  });
  expect((await eventsOf(server, 'sale', cancelled.id)).map((e) => e.event_type)).toEqual([
    'sale.pending',
    'sale.canceled',
  ]);
  // the bank's payment of the boleto now finds it cancelled: nothing is credited
  const late = await moveTo(server, merchant, boleto.body.saleId, 'PAGO');
  expect(late.status).toBe(409);
  expect((await saleOf(pix.body.saleId)).status).toBe('PAGO');
  const view = await call<{ status: string; saleId: string }>(
    'GET',
    `${server.url}/api/checkout/sessions/${session.id}`,
    { headers: merchant.keys },
  );
  expect(view.body).toMatchObject({ status: 'paid', saleId: pix.body.saleId });
});

it('a sale without a session cancels nothing; a session paid once leaves its paid sale alone', async () => {
  const session = await createSession(server, merchant, { methods: ['PIX'] });
  const base = `${server.url}/api/public/checkout/${session.id}`;
  const first = await call<PixPaymentBody>('POST', base, { body: PAYER });
  // another payer (no payer token): a second charge of the same session
  const second = await call<PixPaymentBody>('POST', base, { body: { ...PAYER, name: 'João Souza' } });
  expect(second.body.saleId).not.toBe(first.body.saleId);
  const outside = await call<{ uuid: string }>('POST', `${server.url}/api/transactions`, {
    headers: merchant.keys,
    body: {
      amount: 5000,
      paymentMethod: 'PIX',
      customer: { name: 'Ana', email: 'ana@example.com', document: '52998224725', phone: '11999999999' },
      items: [{ title: 'Curso', unitPrice: 5000, quantity: 1, tangible: false }],
    },
  });
  expect(outside.status, outside.text).toBe(201);
  expect((await moveTo(server, merchant, second.body.saleId, 'PAGO')).status).toBe(200);
  await waitUntil(async () => (await saleOf(first.body.saleId)).status === 'CANCELADO');
  expect((await saleOf(second.body.saleId)).status).toBe('PAGO');
  expect((await saleOf(outside.body.uuid)).status).toBe('PENDENTE');
});
