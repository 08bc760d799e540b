import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moveTo } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { createLink, createSession, PAYER } from './fixtures.js';

let server: TestServer;
let merchant: TestMerchant;

const ADDRESS = {
  street: 'Rua das Flores',
  number: '100',
  district: 'Centro',
  city: 'São Paulo',
  state: 'SP',
  zipCode: '01001-000',
};

interface BoletoBody {
  saleId: string;
  amountCents: number;
  digitableLine: string;
  pdfUrl: string;
  dueDate: string;
  pixCopyPaste: string;
  pixQrCode: string;
  error: string;
}
const boleto = (path: string, body: object) =>
  call<BoletoBody>('POST', `${server.url}/api/public${path}/boleto`, { body });

beforeAll(async () => {
  server = await startServer({ workers: false });
  merchant = await createMerchant(server, 'Loja da Maria');
});
afterAll(() => server?.close());

describe("the payer's boleto", () => {
  it('is issued for a link that offers BOLETO: its line, PDF and Pix; the sale carries the link; its page is told when paid', async () => {
    const link = await createLink(server, merchant, {
      methods: ['PIX', 'BOLETO'],
      metadata: { curso: 'foto' },
    });
    const res = await boleto(`/pay/${link.slug}`, { ...PAYER, address: ADDRESS });
    expect(res.status, res.text).toBe(201);
    expect(res.body.amountCents).toBe(19900);
    expect(res.body.digitableLine).toMatch(/^\d{47}$/);
    expect(res.body.dueDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(res.body.pixQrCode).toMatch(/^data:image\/svg\+xml;base64,/);
    const sale = await call<Record<string, unknown>>(
      'GET',
      `${server.url}/api/transactions/${res.body.saleId}`,
      {
        headers: merchant.keys,
      },
    );
    expect(sale.body).toMatchObject({
      paymentMethod: 'BOLETO',
      status: 'PENDENTE',
      amount: 19900,
      paymentLinkId: link.id,
      metadata: { curso: 'foto' },
    });
    const pdf = await call('GET', `${server.url}${new URL(res.body.pdfUrl).pathname}`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');

    const stream = await request(`${server.url}/api/public/pay/${link.slug}/sales/${res.body.saleId}/events`);
    expect(stream.statusCode).toBe(200);
    expect((await moveTo(server, merchant, res.body.saleId, 'PAGO')).status).toBe(200);
    expect(await stream.body.text()).toContain('event: paid');
  });

  it('is issued for a session of its amount and items, the sale carrying the session', async () => {
    const session = await createSession(server, merchant, { methods: ['BOLETO'] });
    const res = await boleto(`/checkout/${session.id}`, { ...PAYER, address: ADDRESS });
    expect(res.status, res.text).toBe(201);
    expect(res.body.amountCents).toBe(9980);
    const view = await call<{ saleId: string; status: string }>(
      'GET',
      `${server.url}/api/checkout/sessions/${session.id}`,
      { headers: merchant.keys },
    );
    expect(view.body).toMatchObject({ saleId: res.body.saleId, status: 'open' });
  });

  it('is refused without BOLETO among the methods, without the address or with a wrong one (400), and for a gone link (410)', async () => {
    const pixOnly = await createLink(server, merchant);
    expect((await boleto(`/pay/${pixOnly.slug}`, { ...PAYER, address: ADDRESS })).status).toBe(400);
    const link = await createLink(server, merchant, { methods: ['BOLETO'] });
    expect((await boleto(`/pay/${link.slug}`, PAYER)).status).toBe(400);
    const badCep = await boleto(`/pay/${link.slug}`, {
      ...PAYER,
      address: { ...ADDRESS, zipCode: '0100100X' },
    });
    expect(badCep.status).toBe(400);
    const badUf = await boleto(`/pay/${link.slug}`, { ...PAYER, address: { ...ADDRESS, state: 'XX' } });
    expect(badUf.status).toBe(400);
    await call('PATCH', `${server.url}/api/payment-links/${link.id}`, {
      headers: merchant.keys,
      body: { active: false },
    });
    expect((await boleto(`/pay/${link.slug}`, { ...PAYER, address: ADDRESS })).status).toBe(410);
  });
});
