import { isValidBoleto } from '@brazilian-utils/brazilian-utils/is-valid-boleto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { barcodeOfLine, dueFactor } from '../../src/payment-standards/boleto-barcode.js';
import { hasValidCrc } from '../../src/payment-standards/brcode.js';
import { addDays } from '../../src/platform/time/calendar.js';
import { createRecipient } from '../recipients/fixtures.js';
import { eventsOf, moveTo, sandboxSale } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { ADDRESS, type BoletoSaleBody, boletoInput, DUE, spDay } from './fixtures.js';

let server: TestServer;
let merchant: TestMerchant;
const db = () => server.runtime.platform.db;
const issue = (body: unknown, headers: Record<string, string> = {}) =>
  call<BoletoSaleBody>('POST', `${server.url}/api/transactions`, {
    headers: { ...merchant.keys, ...headers },
    body,
  });

beforeAll(async () => {
  server = await startServer({ workers: false });
  merchant = await createMerchant(server);
});
afterAll(() => server?.close());

describe('POST /api/transactions with BOLETO (PIX_PROCESSOR=sandbox)', () => {
  it('issues a boleto híbrido: PENDENTE, sale.pending, FEBRABAN barcode and line, the cobv BR Code', async () => {
    const res = await issue(boletoInput({ amount: 12345 }));
    expect(res.status, res.text).toBe(201);
    const sale = res.body;
    expect(sale).toMatchObject({
      status: 'PENDENTE',
      paymentMethod: 'BOLETO',
      amount: 12345,
      paidAmount: null,
    });
    const { boleto } = sale;
    expect(sale.boletoCode).toBe(boleto.digitableLine);
    expect(boleto.barcode).toMatch(/^2379\d{40}$/);
    expect(boleto.digitableLine).toMatch(/^\d{47}$/);
    expect(isValidBoleto(boleto.digitableLine)).toBe(true);
    expect(barcodeOfLine(boleto.digitableLine)).toBe(boleto.barcode);
    expect(boleto.barcode.slice(5, 9)).toBe(dueFactor(DUE()));
    expect(boleto.barcode.slice(9, 19)).toBe('0000012345');
    expect(boleto.dueDate).toBe(DUE());
    expect(boleto.nossoNumero).toMatch(/^\d{11}$/);
    expect(boleto.barcode.slice(25, 36)).toBe(boleto.nossoNumero); // Bradesco campo livre
    expect(hasValidCrc(boleto.pixCopyPaste)).toBe(true);
    // its Pix is the boleto's: pixKey is a PIX sale's alone (the contract: "PIX payments only")
    expect(sale.pixKey).toBeNull();
    expect(boleto.pixQrCode).toMatch(/^data:image\/svg\+xml/);
    expect(boleto.pdfUrl).toMatch(/^http:\/\/localhost:\d+\/api\/boletos\/[A-Za-z0-9_-]{32}\.pdf$/); // PUBLIC_URL
    expect((await eventsOf(server, 'sale', sale.id)).map((e) => e.event_type)).toEqual(['sale.pending']);

    const lookup = await call<BoletoSaleBody>('GET', `${server.url}/api/transactions/${sale.uuid}`, {
      headers: merchant.keys,
    });
    expect(lookup.body).toEqual({ ...sale, pixQrCode: undefined });
  });

  it('sandbox BOLETO sales carry a well-formed line too, and the sandbox status route pays them', async () => {
    const made = await sandboxSale(server, merchant, { paymentMethod: 'BOLETO', amount: 4321 });
    expect(isValidBoleto(made.boletoCode!)).toBe(true);
    expect(barcodeOfLine(made.boletoCode!)!.slice(9, 19)).toBe('0000004321');
    expect((await moveTo(server, merchant, made.id, 'PAGO')).status).toBe(200);
  });

  it('gives each boleto of the beneficiary its own nosso número', async () => {
    const sales = await Promise.all([1, 2, 3, 4, 5].map(() => issue(boletoInput())));
    const numbers = sales.map((s) => s.body.boleto.nossoNumero);
    expect(new Set(numbers).size).toBe(5);
    const [{ count }] = await db().query<{ count: number }>(
      'SELECT count(DISTINCT nosso_numero)::int AS count FROM boletos',
    );
    const [{ total }] = await db().query<{ total: number }>('SELECT count(*)::int AS total FROM boletos');
    expect(count).toBe(total);
  });

  it('honours Idempotency-Key: a repeat replays the same boleto', async () => {
    const key = { 'idempotency-key': `boleto-${Date.now()}` };
    const a = await issue(boletoInput(), key);
    const b = await issue(boletoInput(), key);
    expect(b.status).toBe(201);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.body.boleto).toEqual(a.body.boleto);
  });

  const { address: _, ...withoutAddress } = boletoInput().customer;
  it.each([
    ['no boleto', boletoInput({ boleto: undefined }), /boleto is required/],
    ['no address', boletoInput({ customer: withoutAddress }), /address/],
    [
      'a CPF with wrong check digits',
      boletoInput({ customer: { ...boletoInput().customer, document: '52998224724' } }),
      /valid CPF or CNPJ/,
    ],
    [
      'a UF that is none',
      boletoInput({ customer: { ...boletoInput().customer, address: { ...ADDRESS, state: 'XX' } } }),
      /UF/,
    ],
    [
      'a zip code of 7 digits',
      boletoInput({ customer: { ...boletoInput().customer, address: { ...ADDRESS, zipCode: '0100100' } } }),
      /^customer\.address\.zipCode must be a CEP: 8 digits/,
    ],
    [
      'a zip code with its dash misplaced',
      boletoInput({ customer: { ...boletoInput().customer, address: { ...ADDRESS, zipCode: '0100-1000' } } }),
      /^customer\.address\.zipCode must be a CEP/,
    ],
    [
      'an empty street (said as a too long one is)',
      boletoInput({ customer: { ...boletoInput().customer, address: { ...ADDRESS, street: '' } } }),
      /^customer\.address\.street must be 1 to 200 characters$/,
    ],
    [
      'a field the boleto does not take',
      boletoInput({}, { foo: 1 } as Record<string, unknown>),
      /boleto.*foo|additional/,
    ],
    [
      'boleto terms on a PIX sale',
      { ...boletoInput(), paymentMethod: 'PIX' },
      /^boleto applies to BOLETO sales only$/,
    ],
    [
      'expiresIn, which a boleto has not (it is due on its dueDate)',
      { ...boletoInput(), expiresIn: 3600 },
      /^expiresIn applies to PIX sales only: a boleto is due on its boleto\.dueDate$/,
    ],
    ['a due date in the past', boletoInput({}, { dueDate: spDay(-1) }), /dueDate/],
    ['a due date beyond 365 days', boletoInput({}, { dueDate: spDay(366) }), /dueDate/],
    ['a due date that is no date', boletoInput({}, { dueDate: '2026-02-30' }), /dueDate/],
    ['daysAfterDue 61', boletoInput({}, { daysAfterDue: 61 }), /daysAfterDue/],
    ['a fine of "2,00"', boletoInput({}, { finePercent: '2,00' }), /finePercent/],
    ['interest of "1.001"', boletoInput({}, { monthlyInterestPercent: '1.001' }), /monthlyInterestPercent/],
    [
      'a discount of the whole amount',
      boletoInput({}, { discount: { amountCents: 10000, untilDate: spDay(1) } }),
      /discount/,
    ],
    [
      'a discount after the due date',
      boletoInput({}, { discount: { amountCents: 100, untilDate: addDays(DUE(), 1) } }),
      /discount/,
    ],
  ])('refuses %s: 400 shape D, nothing stored', async (_, body, message) => {
    const [{ before }] = await db().query<{ before: number }>('SELECT count(*)::int AS before FROM sales');
    const res = await issue(body);
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ error: 'VALIDATION_ERROR', message: expect.stringMatching(message) });
    const [{ after }] = await db().query<{ after: number }>('SELECT count(*)::int AS after FROM sales');
    expect(after).toBe(before);
  });

  it('accepts a due date today and 365 days ahead, a CNPJ payer and every term', async () => {
    for (const dueDate of [spDay(0), spDay(365)]) {
      const res = await issue(
        boletoInput(
          { customer: { ...boletoInput().customer, document: '11.222.333/0001-81' } },
          {
            dueDate,
            daysAfterDue: 60,
            finePercent: '2.00',
            monthlyInterestPercent: '1.00',
            discount: { amountCents: 500, untilDate: spDay(0) },
          },
        ),
      );
      expect(res.status, res.text).toBe(201);
      expect(res.body.boleto.dueDate).toBe(dueDate);
    }
  });

  it("refuses a discount that, paid with it, would leave the split's fee payer below zero", async () => {
    const fixed = await createRecipient(server, merchant);
    const payer = await createRecipient(server, merchant);
    const split = [
      { recipientId: fixed.id, amountCents: 6000 },
      { recipientId: payer.id, percent: 20, chargeFees: true },
    ];
    const [{ before }] = await db().query<{ before: number }>('SELECT count(*)::int AS before FROM sales');
    // 10000 − 5000 of discount: the fee payer's 2000 would not cover the other parties' 6000 + 2000
    const refused = await issue(
      boletoInput({ split }, { discount: { amountCents: 5000, untilDate: spDay(1) } }),
    );
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body).toEqual({
      error: 'VALIDATION_ERROR',
      message: expect.stringContaining(`split's fee payer (recipient ${payer.id})`),
    });
    const [{ after }] = await db().query<{ after: number }>('SELECT count(*)::int AS after FROM sales');
    expect(after).toBe(before);
    // one whose fee, paid with the discount, takes it whole: refused likewise (its payment could not be credited)
    const dear = await createMerchant(server, 'Loja de tarifa fixa');
    await db().query('UPDATE accounts SET sale_fee_fixed = 99 WHERE id = $1', [dear.accountId]);
    const whole = await call<{ message: string }>('POST', `${server.url}/api/transactions`, {
      headers: dear.keys,
      body: boletoInput({}, { discount: { amountCents: 9950, untilDate: spDay(1) } }),
    });
    expect(whole.status, whole.text).toBe(400);
    expect(whole.body.message).toBe(
      "paid with its discount, the charge's amount 50 does not cover this account's sale fee of 99 cents",
    );
    // a discount the fee payer's share absorbs is issued
    const issued = await issue(
      boletoInput({ split }, { discount: { amountCents: 500, untilDate: spDay(1) } }),
    );
    expect(issued.status, issued.text).toBe(201);
  });
});
