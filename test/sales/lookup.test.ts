import { randomUUID } from 'node:crypto';
import { Compile } from 'typebox/compile';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../../src/accounts/accounts.js';
import { SandboxProcessor } from '../../src/sales/processors/sandbox.js';
import { createSandboxSale } from '../../src/sales/sandbox-sales.js';
import { Sale } from '../../src/sales/schemas.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { CUSTOMER, moveTo, type SaleBody, saleInput, sandboxSale } from './fixtures.js';

let server: TestServer;
let merchant: TestMerchant;
let other: TestMerchant;
let sale: SaleBody;

const get = (id: string | number, headers: Record<string, string> = merchant.keys) =>
  call<Record<string, unknown>>('GET', `${server.url}/api/transactions/${id}`, { headers });

beforeAll(async () => {
  server = await startServer();
  merchant = await createMerchant(server);
  other = await createMerchant(server, 'Other Merchant');
  sale = await sandboxSale(server, merchant);
});
afterAll(() => server?.close());

describe('GET /api/transactions/{id}', () => {
  it('finds a sale by uuid and by numeric id, with the same body', async () => {
    const byUuid = await get(sale.uuid);
    const byId = await get(sale.id);
    expect(byUuid.status).toBe(200);
    expect(byId.status).toBe(200);
    expect(byUuid.body).toEqual(byId.body);
    expect(byUuid.body.id).toBe(sale.id);
    expect(byUuid.body.uuid).toBe(sale.uuid);
    expect((await get(sale.uuid.toUpperCase())).body).toEqual(byUuid.body);
  });

  it('answers exactly the Sale schema (the route sends stored JSON text: the schema cannot filter it) for every method and status', async () => {
    const check = Compile(Sale);
    // idRec and contrato are a Pix Automático sale's only; boleto an issued boleto's (test/boletos);
    // paymentLinkId and checkoutSessionId a sale's made through a payment link or checkout session (test/checkout);
    // refusalReason a refused card sale's (below, and test/cards); risk a sale a risk rule decided (test/risk);
    // split a split sale's (test/sales/split.test.ts); subscriptionId a subscription's (test/subscriptions)
    const only = [
      'idRec',
      'contrato',
      'boleto',
      'paymentLinkId',
      'checkoutSessionId',
      'refusalReason',
      'risk',
      'split',
      'subscriptionId',
    ];
    const keys = Object.keys(Sale.properties).filter((k) => !only.includes(k));
    const paths: [string, string[]][] = [
      ['PIX', ['PAGO', 'MED', 'PAGO', 'ESTORNADO']],
      ['CREDIT_CARD', ['PAGO', 'CHARGEBACK']],
      ['DEBIT_CARD', ['RECUSADO']],
      ['BOLETO', ['CANCELADO']],
      ['TRANSFER', ['EM_PROCESSAMENTO', 'FALHA']],
    ];
    for (const [paymentMethod, statuses] of paths) {
      const made = await sandboxSale(server, merchant, {
        paymentMethod,
        items: [{ title: 'Livro', unitPrice: 5000, quantity: 1, tangible: true }],
        amount: 5000,
        shipping: { street: 'Rua A', number: '1', city: 'São Paulo', state: 'SP', zipCode: '01000-000' },
      });
      for (const status of ['PENDENTE', ...statuses]) {
        if (status !== 'PENDENTE') expect((await moveTo(server, merchant, made.id, status)).status).toBe(200);
        const res = await get(made.uuid);
        const where = `${paymentMethod} ${status}`;
        expect(res.status, where).toBe(200);
        expect(res.body.status, where).toBe(status);
        expect(check.Check(res.body), `${where}: ${JSON.stringify([...check.Errors(res.body)])}`).toBe(true);
        const refusedCard = status === 'RECUSADO' && paymentMethod.endsWith('_CARD');
        expect(Object.keys(res.body), where).toEqual(refusedCard ? [...keys, 'refusalReason'] : keys);
      }
    }
  });

  it('answers the spec table keys in order', async () => {
    const res = await get(sale.uuid);
    expect(Object.keys(res.body)).toEqual([
      'id',
      'uuid',
      'status',
      'amount',
      'netAmount',
      'systemFee',
      'reserveAmount',
      'paymentMethod',
      'date',
      'completedAt',
      'customer',
      'items',
      'pixKey',
      'cardLastFour',
      'cardBrand',
      'boletoCode',
      'externalTransactionId',
      'installments',
      'shipping',
      'metadata',
      'expiresAt',
      'refundedAmount',
      'paidAmount',
    ]);
  });

  it.each(['abc', '1.5', '-1', '+1', '1e3', ' 1', `${randomUUID()}x`, 'null', '%20'])(
    'answers 400 in shape D for id %s, neither a uuid nor a number',
    async (id) => {
      const res = await get(id);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        message: 'id must be a sale uuid or a numeric id',
        error: 'VALIDATION_ERROR',
      });
    },
  );

  it('answers 404 in shape D for an unknown uuid or id, and for numbers no sale id can be', async () => {
    // 0, leading zeros and numbers beyond 2^53 are numbers (not a 400), and name no sale
    for (const id of [
      randomUUID(),
      987654321,
      '0',
      '00',
      `0${sale.id}`,
      '12345678901234567',
      '9'.repeat(1500),
    ]) {
      const res = await get(id);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Sale not found', error: 'NOT_FOUND' });
    }
  });

  it("answers 403 in shape D for another account's sale, by either id", async () => {
    for (const id of [sale.uuid, sale.id]) {
      const res = await get(id, other.keys);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: 'Sale belongs to another account', error: 'FORBIDDEN' });
    }
  });

  it('lookups that arrive together (one query for them all) each answer as they would alone', async () => {
    const mine = await Promise.all(Array.from({ length: 5 }, () => sandboxSale(server, merchant)));
    const theirs = await Promise.all(Array.from({ length: 5 }, () => sandboxSale(server, other)));
    const asks: { id: string | number; keys: Record<string, string>; status: number; uuid?: string }[] = [];
    for (let k = 0; k < 40; k++) {
      const s = (k % 2 ? mine : theirs)[k % 5]!;
      asks.push({ id: k % 3 ? s.uuid : s.id, keys: merchant.keys, status: k % 2 ? 200 : 403, uuid: s.uuid });
      asks.push({
        id: s.uuid,
        keys: other.keys,
        status: k % 2 ? 403 : 200,
        uuid: s.uuid,
      });
      asks.push({ id: k % 2 ? randomUUID() : 900_000_000 + k, keys: merchant.keys, status: 404 });
    }
    const answers = await Promise.all(asks.map((a) => get(a.id, a.keys)));
    for (const [k, res] of answers.entries()) {
      expect(res.status, JSON.stringify(asks[k])).toBe(asks[k]!.status);
      if (res.status === 200) expect(res.body.uuid).toBe(asks[k]!.uuid);
      else expect(res.body).toEqual({ error: expect.any(String), message: expect.any(String) });
    }
  });

  it('answers 401 in shape D without keys or with wrong keys', async () => {
    const variants: Record<string, string>[] = [
      {},
      { 'x-api-public-key': merchant.publicKey },
      { 'x-api-public-key': merchant.publicKey, 'x-api-private-key': 'sk_wrong' },
      { 'x-api-public-key': 'pk_unknown', 'x-api-private-key': merchant.privateKey },
    ];
    for (const headers of variants) {
      const res = await get(sale.uuid, headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: expect.any(String), error: 'UNAUTHORIZED' });
    }
    // 401 comes before the id is looked at
    const bad = await get('not-an-id', {});
    expect(bad.status).toBe(401);
  });

  it('refuses a panel session (cookie) without API keys', async () => {
    const res = await get(sale.uuid, merchant.panel);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: expect.any(String), error: 'UNAUTHORIZED' });
  });

  it('answers IP_NOT_ALLOWED in shape B when the source IP is not listed', async () => {
    const m = await createMerchant(server, 'IP Merchant');
    // The sale is made without the keys, so no process has cached this account's (empty) list before the
    // new one is saved (eviction by NOTIFY is asynchronous).
    const { db, config } = server.runtime.platform;
    const s = await createSandboxSale(db, new SandboxProcessor(config.secretsKey), m.accountId, {
      amount: 1000,
      paymentMethod: 'PIX',
      customer: CUSTOMER,
      items: [{ title: 'x', unitPrice: 1000, quantity: 1, tangible: false }],
    });
    const put = await call('PUT', `${server.url}/api/settings/allowed-ips`, {
      headers: m.panel,
      body: { ips: ['203.0.113.9'] },
    });
    expect(put.status).toBe(200);
    const res = await get(s.uuid, m.keys);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: expect.any(String), code: 'IP_NOT_ALLOWED' });
  });
});

describe('Sale fields per payment method', () => {
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

  function commonShape(body: Record<string, unknown>) {
    expect(body).toMatchObject({
      id: expect.any(Number),
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      amount: expect.any(Number),
      netAmount: expect.any(Number),
      systemFee: expect.any(Number),
      reserveAmount: expect.any(Number),
      date: expect.stringMatching(iso),
      customer: CUSTOMER,
      externalTransactionId: expect.any(String),
    });
    for (const item of body.items as Record<string, unknown>[]) {
      expect(item).toEqual({
        id: expect.any(Number),
        title: expect.any(String),
        unitPrice: expect.any(Number),
        quantity: expect.any(Number),
        tangible: expect.any(Boolean),
      });
      expect(Number.isInteger(item.id)).toBe(true);
    }
  }

  it('PIX: pixKey is the generated code; card, boleto, installments are null', async () => {
    const s = await sandboxSale(server, merchant, { paymentMethod: 'PIX' });
    const { body } = await get(s.uuid);
    commonShape(body);
    expect(body.paymentMethod).toBe('PIX');
    expect(body.pixKey).toMatch(/^000201.*br\.gov\.bcb\.pix.*6304[0-9A-F]{4}$/);
    expect(body).toMatchObject({ cardLastFour: null, cardBrand: null, boletoCode: null, installments: null });
    expect(body.shipping).toBeNull();
    expect(body.completedAt).toBeNull();
  });

  it('CREDIT_CARD: card fields and installments; no pix/boleto', async () => {
    const s = await sandboxSale(server, merchant, {
      paymentMethod: 'CREDIT_CARD',
      installments: 3,
      card: { brand: 'MASTERCARD', lastFour: '1234' },
    });
    const { body } = await get(s.id);
    commonShape(body);
    expect(body).toMatchObject({
      paymentMethod: 'CREDIT_CARD',
      cardLastFour: '1234',
      cardBrand: 'MASTERCARD',
      installments: 3,
      pixKey: null,
      boletoCode: null,
    });
    const dflt = await sandboxSale(server, merchant, { paymentMethod: 'CREDIT_CARD' });
    expect(dflt.installments).toBe(1);
    expect(dflt.cardLastFour).toMatch(/^\d{4}$/);
    expect(dflt.cardBrand).toBe('visa');
  });

  it('DEBIT_CARD: card fields; installments null', async () => {
    const s = await sandboxSale(server, merchant, { paymentMethod: 'DEBIT_CARD' });
    const { body } = await get(s.uuid);
    commonShape(body);
    expect(body.cardLastFour).toMatch(/^\d{4}$/);
    expect(body).toMatchObject({ cardBrand: 'visa', installments: null, pixKey: null, boletoCode: null });
  });

  it('BOLETO: boletoCode is a 47-digit line; others null', async () => {
    const s = await sandboxSale(server, merchant, { paymentMethod: 'BOLETO' });
    const { body } = await get(s.uuid);
    commonShape(body);
    expect(body.boletoCode).toMatch(/^\d{47}$/);
    expect(body).toMatchObject({ pixKey: null, cardLastFour: null, cardBrand: null, installments: null });
  });

  it('TRANSFER: every method-specific field is null', async () => {
    const s = await sandboxSale(server, merchant, { paymentMethod: 'TRANSFER' });
    const { body } = await get(s.uuid);
    commonShape(body);
    expect(body).toMatchObject({
      pixKey: null,
      cardLastFour: null,
      cardBrand: null,
      boletoCode: null,
      installments: null,
    });
  });

  it('PIX_AUTOMATICO: carries idRec and contrato after the spec fields', async () => {
    const rec = await call<{ idRec: string; sale: SaleBody }>(
      'POST',
      `${server.url}/api/sandbox/recurrences`,
      {
        headers: merchant.keys,
        body: { contrato: 'CT-001', journey: 3, amount: 4990, dataInicial: '2026-12-01', customer: CUSTOMER },
      },
    );
    expect(rec.status).toBe(201);
    const { body } = await get(rec.body.sale.uuid);
    commonShape(body);
    expect(body).toMatchObject({
      paymentMethod: 'PIX_AUTOMATICO',
      status: 'PAGO',
      completedAt: expect.stringMatching(iso),
      idRec: rec.body.idRec,
      contrato: 'CT-001',
      pixKey: null,
      cardLastFour: null,
      cardBrand: null,
      boletoCode: null,
      installments: null,
    });
    expect(Object.keys(body).slice(-5)).toEqual([
      'expiresAt',
      'refundedAmount',
      'paidAmount',
      'idRec',
      'contrato',
    ]);
  });

  it('shipping comes back as the object given, key order kept', async () => {
    const shipping = { zipCode: '01310100', street: 'Av. Paulista', number: '1000', city: 'São Paulo' };
    const s = await sandboxSale(server, merchant, {
      items: [{ title: 'Livro', unitPrice: 10000, quantity: 1, tangible: true }],
      shipping,
    });
    const res = await get(s.uuid);
    expect(res.body.shipping).toEqual(shipping);
    expect(Object.keys(res.body.shipping as object)).toEqual(Object.keys(shipping));
  });

  it('a sale of digital products only has no shipping (spec: physical products only)', async () => {
    const s = await sandboxSale(server, merchant, {
      items: [{ title: 'Curso', unitPrice: 10000, quantity: 1, tangible: false }],
      shipping: { zipCode: '01310100', street: 'Av. Paulista' },
    });
    expect((await get(s.uuid)).body.shipping).toBeNull();
    const [fact] = await server.runtime.platform.db.query<{ webhook_body: string }>(
      `SELECT webhook_body FROM notification_events WHERE subject_type = 'sale' AND subject_id = $1`,
      [s.id],
    );
    expect(JSON.parse(fact!.webhook_body).shipping).toBeNull();
  });

  it('fees and reserve come from the account settings, half-up', async () => {
    const m = await createMerchant(server, 'Fee Merchant');
    // 3.99 % + 0.99; reserve 10 %
    await updateAccount(server.runtime.platform.db, m.accountId, {
      saleFeePercentE4: 39900,
      saleFeeFixed: 99,
      reservePercentE4: 100000,
    });
    const s = await sandboxSale(server, m, { amount: 12345 });
    // 12345 × 3.99 % = 492.5655 → 493; + 99 = 592
    expect(s).toMatchObject({ amount: 12345, systemFee: 592, netAmount: 11753, reserveAmount: 1235 });
    // 50 × 3.99 % = 1.995 → 2; + 99 = 101 > 50: the amount cannot cover the fee
    const tiny = await call('POST', `${server.url}/api/sandbox/sales`, {
      headers: m.keys,
      body: saleInput({ amount: 50 }),
    });
    expect(tiny.status).toBe(400);
    expect(tiny.body).toEqual({
      success: false,
      error: { code: 'VALIDATION_ERROR', message: expect.any(String) },
    });

    const h = await createMerchant(server, 'Half-up Merchant');
    await updateAccount(server.runtime.platform.db, h.accountId, {
      saleFeePercentE4: 25000,
      reservePercentE4: 25000,
    });
    // 1020 × 2.5 % = 25.5 → 26 (half-up); 1010 × 2.5 % = 25.25 → 25
    expect(await sandboxSale(server, h, { amount: 1020 })).toMatchObject({
      systemFee: 26,
      netAmount: 994,
      reserveAmount: 26,
    });
    expect(await sandboxSale(server, h, { amount: 1010 })).toMatchObject({
      systemFee: 25,
      netAmount: 985,
      reserveAmount: 25,
    });
  });
});

describe('completedAt', () => {
  it('is set at the first PAGO and kept through a dispute', async () => {
    const s = await sandboxSale(server, merchant);
    const paid = await moveTo(server, merchant, s.uuid, 'PAGO');
    expect(paid.body.completedAt).toMatch(/Z$/);
    await moveTo(server, merchant, s.uuid, 'MED');
    const back = await moveTo(server, merchant, s.uuid, 'PAGO');
    expect(back.body.completedAt).toBe(paid.body.completedAt);
  });
});

describe('OpenAPI', () => {
  it('documents the lookup, the callback and the sandbox routes', async () => {
    const res = await call<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }>(
      'GET',
      `${server.url}/openapi.json`,
    );
    expect(res.status).toBe(200);
    const lookup = res.body.paths['/api/transactions/{id}']!.get!;
    expect(Object.keys(lookup.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '429',
      '500',
      '503',
    ]);
    for (const path of [
      '/api/providers/{processor}/sales/callback',
      '/api/sandbox/sales',
      '/api/sandbox/sales/{id}/status',
      '/api/sandbox/recurrences',
      '/api/sandbox/recurrences/{idRec}/cycles',
      '/api/sandbox/carts',
      '/api/sandbox/carts/{id}/abandon',
    ]) {
      expect(res.body.paths[path], path).toBeDefined();
    }
  });
});
