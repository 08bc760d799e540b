import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moveTo } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { countRows, createLink, createSession, PAYER, type SessionBody } from './fixtures.js';

let server: TestServer;
let merchant: TestMerchant;

interface BoletoPaymentBody {
  saleId: string;
  amountCents: number;
  digitableLine: string;
  barcode: string;
  dueDate: string;
  pdfUrl: string;
  pixCopyPaste: string;
  pixQrCode: string;
}

const ADDRESS = {
  street: 'Rua das Flores',
  number: '100',
  district: 'Centro',
  city: 'São Paulo',
  state: 'SP',
  zipCode: '01001-000',
};

beforeAll(async () => {
  server = await startServer({ workers: false });
  merchant = await createMerchant(server);
});
afterAll(() => server?.close());

const payLink = (slug: string, body: unknown) =>
  call<BoletoPaymentBody & { error: string; message: string }>(
    'POST',
    `${server.url}/api/public/pay/${slug}/boleto`,
    { body },
  );

describe("the payer's boleto", () => {
  it('a link paid by boleto: its line, barcode, PDF and Pix, due in 3 days, the sale the link’s', async () => {
    const link = await createLink(server, merchant, { methods: ['PIX', 'BOLETO'] });
    const res = await payLink(link.slug, { ...PAYER, address: ADDRESS });
    expect(res.status, res.text).toBe(201);
    expect(res.body.amountCents).toBe(19900);
    expect(res.body.digitableLine).toMatch(/^\d{47}$/);
    expect(res.body.barcode).toMatch(/^\d{44}$/);
    const due = Date.parse(`${res.body.dueDate}T12:00:00-03:00`);
    expect(Math.round((due - Date.now()) / 86_400_000)).toBeGreaterThanOrEqual(2);
    expect(Math.round((due - Date.now()) / 86_400_000)).toBeLessThanOrEqual(4);
    expect(res.body.pixQrCode).toMatch(/^data:image\/svg\+xml/);

    const pdf = await fetch(res.body.pdfUrl.replace(server.runtime.platform.config.publicUrl, server.url));
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toContain('application/pdf');
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');

    const sale = await call<{ paymentMethod: string; paymentLinkId: string; boletoCode: string }>(
      'GET',
      `${server.url}/api/transactions/${res.body.saleId}`,
      { headers: merchant.keys },
    );
    expect(sale.status).toBe(200);
    expect(sale.body).toMatchObject({ paymentMethod: 'BOLETO', paymentLinkId: link.id });
  });

  it('a session paid by boleto: its amount and items; paid, the session is paid', async () => {
    const session = await createSession(server, merchant, { methods: ['BOLETO'] });
    const res = await call<BoletoPaymentBody>(
      'POST',
      `${server.url}/api/public/checkout/${session.id}/boleto`,
      {
        body: { ...PAYER, address: ADDRESS },
      },
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body.amountCents).toBe(9980);
    expect((await moveTo(server, merchant, res.body.saleId, 'PAGO')).status).toBe(200);
    const after = await call<SessionBody>('GET', `${server.url}/api/checkout/sessions/${session.id}`, {
      headers: merchant.keys,
    });
    expect(after.body).toMatchObject({ status: 'paid', saleId: res.body.saleId });
  });

  it.each([
    [
      'a link without BOLETO among its methods',
      { methods: ['PIX'] },
      { ...PAYER, address: ADDRESS },
      'BOLETO',
    ],
    ['no address', { methods: ['BOLETO'] }, PAYER, 'address'],
    [
      'a state that is no UF',
      { methods: ['BOLETO'] },
      { ...PAYER, address: { ...ADDRESS, state: 'XX' } },
      'UF',
    ],
    [
      'a wrong CPF',
      { methods: ['BOLETO'] },
      { ...PAYER, document: '529.982.247-24', address: ADDRESS },
      'document',
    ],
  ])('refuses %s: 400 shape D, no sale written', async (_, linkOverrides, body, word) => {
    const link = await createLink(server, merchant, linkOverrides);
    const before = await countRows(server, 'sales');
    const res = await payLink(link.slug, body);
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ error: 'VALIDATION_ERROR', message: expect.stringContaining(word) });
    expect(await countRows(server, 'sales')).toBe(before);
  });

  it('an unknown link is 404', async () => {
    const res = await payLink('AAAAAAAAAAAAAAAA', { ...PAYER, address: ADDRESS });
    expect(res.status).toBe(404);
  });
});
