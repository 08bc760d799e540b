import { Compile } from 'typebox/compile';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasValidCrc } from '../../src/payment-standards/brcode.js';
import { Sale } from '../../src/sales/schemas.js';
import { moveTo } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import {
  countRows,
  createLink,
  createSession,
  type LinkBody,
  PAYER,
  type PixPaymentBody,
  type SessionBody,
} from './fixtures.js';

let server: TestServer;
let merchant: TestMerchant;
let other: TestMerchant;

type Answer = PixPaymentBody & Record<string, unknown> & { error: string; message: string };
const page = (path: string) => call<Answer>('GET', `${server.url}/api/public${path}`);
const pay = (path: string, body: unknown) =>
  call<Answer>('POST', `${server.url}/api/public${path}`, { body });
const sale = (id: string, who = merchant) =>
  call<Record<string, unknown>>('GET', `${server.url}/api/transactions/${id}`, { headers: who.keys });
const db = () => server.runtime.platform.db;

beforeAll(async () => {
  server = await startServer({ workers: false });
  merchant = await createMerchant(server, 'Loja da Maria');
  other = await createMerchant(server, 'Other Merchant');
});
afterAll(() => server?.close());

describe('payment link pages', () => {
  it('show the payer only the title, amount, methods and the merchant’s name', async () => {
    const link = await createLink(server, merchant, {
      description: 'Acesso por 12 meses',
      metadata: { secret: 'interno' },
      successUrl: 'https://loja.example.com/obrigado',
    });
    const res = await page(`/pay/${link.slug}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      title: 'Curso de fotografia',
      description: 'Acesso por 12 meses',
      amountCents: 19900,
      minCents: null,
      maxCents: null,
      methods: ['PIX'],
      maxInstallments: null,
      expiresAt: null,
      merchantName: 'Loja da Maria',
    });
    expect(res.text).not.toContain('interno');
    expect(res.text).not.toContain(link.id);
  });

  it('pay a fixed link by PIX: a sale carrying paymentLinkId, its BR Code and QR code', async () => {
    const link = await createLink(server, merchant, { metadata: { productId: 'curso-foto' } });
    const res = await pay(`/pay/${link.slug}`, PAYER);
    expect(res.status, res.text).toBe(201);
    expect(res.body.amountCents).toBe(19900);
    expect(hasValidCrc(res.body.pixCopyPaste)).toBe(true);
    expect(res.body.pixQrCode).toMatch(/^data:image\/svg\+xml;base64,/);
    const made = await sale(res.body.saleId);
    expect(made.body).toMatchObject({
      status: 'PENDENTE',
      amount: 19900,
      paymentMethod: 'PIX',
      pixKey: res.body.pixCopyPaste,
      paymentLinkId: link.id,
      metadata: { productId: 'curso-foto' },
      customer: { name: 'Maria Silva', email: 'maria@example.com', document: '52998224725', phone: '' },
      items: [expect.objectContaining({ title: 'Curso de fotografia', unitPrice: 19900, quantity: 1 })],
    });
    expect(made.body).not.toHaveProperty('checkoutSessionId');
    expect(Compile(Sale).Check(made.body)).toBe(true);
    expect(Object.keys(made.body).at(-1)).toBe('paymentLinkId');
    const [row] = await db().query<{ payment_link_id: string }>(
      'SELECT payment_link_id::text FROM sales WHERE uuid = $1',
      [res.body.saleId],
    );
    expect(row!.payment_link_id).toBe(link.id);
    // its notifications name the link too, as the Sale object does
    expect((await moveTo(server, merchant, res.body.saleId, 'PAGO')).status).toBe(200);
    const [fact] = await db().query<{ webhook_body: string }>(
      `SELECT webhook_body FROM notification_events
        WHERE subject_type = 'sale' AND event_type = 'sale.paid' AND webhook_body LIKE $1`,
      [`%${res.body.saleId}%`],
    );
    expect(JSON.parse(fact!.webhook_body)).toMatchObject({ paymentLinkId: link.id, eventType: 'sale.paid' });
    expect(JSON.parse(fact!.webhook_body)).not.toHaveProperty('checkoutSessionId');
  });

  it('keep an open amount within its range and a fixed one as set', async () => {
    const open = await createLink(server, merchant, {
      amountCents: undefined,
      minCents: 500,
      maxCents: 5000,
    });
    expect((await page(`/pay/${open.slug}`)).body).toMatchObject({
      amountCents: null,
      minCents: 500,
      maxCents: 5000,
    });
    const fixed = await createLink(server, merchant);
    const before = await countRows(server, 'sales');
    for (const [slug, body, words] of [
      [open.slug, PAYER, 'amountCents is required'],
      [open.slug, { ...PAYER, amountCents: 499 }, 'from 500 to 5000'],
      [open.slug, { ...PAYER, amountCents: 5001 }, 'from 500 to 5000'],
      [fixed.slug, { ...PAYER, amountCents: 1 }, 'fixed'],
      [fixed.slug, { ...PAYER, document: '529.982.247-24' }, 'document'],
      [fixed.slug, { ...PAYER, document: '11111111111' }, 'document'],
      [fixed.slug, { ...PAYER, email: 'maria' }, 'email'],
      [fixed.slug, { email: PAYER.email, document: PAYER.document }, 'name'],
    ] as const) {
      const res = await pay(`/pay/${slug}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual({ error: 'VALIDATION_ERROR', message: expect.stringContaining(words) });
    }
    expect(await countRows(server, 'sales')).toBe(before);
    const paid = await pay(`/pay/${open.slug}`, { ...PAYER, amountCents: 5000 });
    expect(paid.status, paid.text).toBe(201);
    expect(paid.body.amountCents).toBe(5000);
    const cnpj = await pay(`/pay/${open.slug}`, {
      ...PAYER,
      document: '11.222.333/0001-81',
      amountCents: 500,
    });
    expect(cnpj.status, cnpj.text).toBe(201);
  });

  it('count paid sales as uses: maxUses reached → 410, and the link shows its uses', async () => {
    const link = await createLink(server, merchant, { maxUses: 1 });
    const first = await pay(`/pay/${link.slug}`, PAYER);
    // the same payer reloading (their page sends its token back): the same charge
    const again = await pay(`/pay/${link.slug}`, { ...PAYER, payerToken: first.body.payerToken });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body.saleId).toBe(first.body.saleId);
    expect(again.body.pixCopyPaste).toBe(first.body.pixCopyPaste);
    // another payer meanwhile: the link's one use is reserved by the open charge
    const other = await pay(`/pay/${link.slug}`, {
      ...PAYER,
      name: 'João Souza',
      document: '111.444.777-35',
    });
    expect(other.status, other.text).toBe(410);
    expect(other.body.error).toBe('GONE');
    const paid = await moveTo(server, merchant, first.body.saleId, 'PAGO');
    expect(paid.status, paid.text).toBe(200);
    const gone = await page(`/pay/${link.slug}`);
    expect(gone.status).toBe(410);
    expect(gone.body).toEqual({ error: 'GONE', message: 'This payment link has been used up' });
    const before = await countRows(server, 'sales');
    expect((await pay(`/pay/${link.slug}`, PAYER)).status).toBe(410);
    expect(await countRows(server, 'sales')).toBe(before);
    const seen = await call<LinkBody>('GET', `${server.url}/api/payment-links/${link.id}`, {
      headers: merchant.keys,
    });
    expect(seen.body.uses).toBe(1);
  });

  it('maxUses counts reservations: concurrent payers of a one-use link get one charge, the rest 410; an expired charge frees the use', async () => {
    const DOCS = ['52998224725', '11144477735', '39053344705', '86288366757', '71428793860', '24843803480'];
    for (let round = 0; round < 3; round++) {
      const link = await createLink(server, merchant, { maxUses: 1 });
      const answers = await Promise.all(
        DOCS.map((document, i) => pay(`/pay/${link.slug}`, { ...PAYER, name: `Pagador ${i}`, document })),
      );
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses, answers.map((a) => a.text).join('\n')).toEqual([201, 410, 410, 410, 410, 410]);
      const [row] = await db().query<{ n: number }>(
        'SELECT count(*)::int AS n FROM sales WHERE payment_link_id = $1',
        [link.id],
      );
      expect(row!.n).toBe(1);
      if (round === 0) {
        // the charge lapses unpaid: the use is free again
        const opened = answers.find((a) => a.status === 201)!;
        await db().query(`UPDATE sales SET charge_expires_at = now() - interval '1 second' WHERE uuid = $1`, [
          opened.body.saleId,
        ]);
        const next = await pay(`/pay/${link.slug}`, { ...PAYER, document: DOCS[0] });
        expect(next.status, next.text).toBe(201);
        expect(next.body.saleId).not.toBe(opened.body.saleId);
      }
    }
  });

  it('answer 410 for an expired or turned-off link and 404 for an unknown one', async () => {
    const expiring = await createLink(server, merchant, {
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    await db().query(`UPDATE payment_links SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      expiring.id,
    ]);
    const expired = await pay(`/pay/${expiring.slug}`, PAYER);
    expect(expired.status).toBe(410);
    expect(expired.body).toEqual({ error: 'GONE', message: 'This payment link has expired' });
    const off = await createLink(server, merchant);
    await call('PATCH', `${server.url}/api/payment-links/${off.id}`, {
      headers: merchant.keys,
      body: { active: false },
    });
    expect((await page(`/pay/${off.slug}`)).body).toEqual({
      error: 'GONE',
      message: 'This payment link is turned off',
    });
    for (const slug of ['AAAAAAAAAAAAAAAA', 'nope', off.id]) {
      const missing = await page(`/pay/${slug}`);
      expect(missing.status, slug).toBe(404);
      expect(missing.body).toEqual({ error: 'NOT_FOUND', message: 'Payment link not found' });
    }
  });

  it('refuse a link without PIX among its methods', async () => {
    const boleto = await createLink(server, merchant, { methods: ['BOLETO'] });
    const res = await pay(`/pay/${boleto.slug}`, PAYER);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('PIX');
  });
});

describe('checkout session pages', () => {
  it('show the payer the amount, items and methods, never metadata or the customer', async () => {
    const session = await createSession(server, merchant, {
      customer: { name: 'Maria Silva', document: '52998224725' },
      cancelUrl: 'https://loja.example.com/carrinho',
    });
    const res = await page(`/checkout/${session.id}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      id: session.id,
      status: 'open',
      amountCents: 9980,
      items: [{ title: 'Camiseta', unitPrice: 4990, quantity: 2, tangible: true }],
      methods: ['PIX'],
      expiresAt: session.expiresAt,
      merchantName: 'Loja da Maria',
      cancelUrl: 'https://loja.example.com/carrinho',
      redirectUrl: null,
    });
    expect(res.text).not.toContain('pedido-1001');
    expect(res.text).not.toContain('52998224725');
  });

  it('never hand a prefilled buyer’s name or document to whoever holds the URL: the payer types them', async () => {
    const session = await createSession(server, merchant, {
      customer: { name: 'Maria Silva', email: 'maria@example.com', document: '52998224725' },
    });
    const before = await countRows(server, 'sales');
    for (const body of [{}, { name: 'Outra Pessoa' }, { document: '11144477735' }]) {
      const res = await pay(`/checkout/${session.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.text).not.toContain('52998224725');
      expect(res.text).not.toContain('Maria');
    }
    expect(await countRows(server, 'sales')).toBe(before);
    const typed = await pay(`/checkout/${session.id}`, { name: 'Outra Pessoa', document: '11144477735' });
    expect(typed.status, typed.text).toBe(201);
    const made = await sale(typed.body.saleId);
    expect(made.body).toMatchObject({
      customer: { name: 'Outra Pessoa', document: '11144477735', email: 'maria@example.com' },
    });
  });

  it('take the session’s amount and items: the page cannot send its own', async () => {
    const session = await createSession(server, merchant);
    const before = await countRows(server, 'sales');
    for (const body of [
      { ...PAYER, amountCents: 1 },
      { ...PAYER, items: [{ title: 'Grátis', unitPrice: 0, quantity: 1, tangible: false }] },
    ]) {
      const res = await pay(`/checkout/${session.id}`, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
    }
    expect(await countRows(server, 'sales')).toBe(before);
  });

  it('pay by PIX: the sale carries checkoutSessionId; paid, the session is paid with its saleId and redirect', async () => {
    const session = await createSession(server, merchant, { customer: { email: 'maria@example.com' } });
    // the email is the session's; the payer gives the rest
    const res = await pay(`/checkout/${session.id}`, { name: 'Maria Silva', document: '52998224725' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.amountCents).toBe(9980);
    const again = await pay(`/checkout/${session.id}`, { ...PAYER, payerToken: res.body.payerToken });
    expect(again.body.saleId).toBe(res.body.saleId); // the charge already open, not a second one
    const made = await sale(res.body.saleId);
    expect(made.body).toMatchObject({
      amount: 9980,
      checkoutSessionId: session.id,
      metadata: { orderId: 'pedido-1001' },
      customer: { email: 'maria@example.com', document: '52998224725' },
      items: [expect.objectContaining({ title: 'Camiseta', unitPrice: 4990, quantity: 2 })],
    });
    expect(made.body).not.toHaveProperty('paymentLinkId');
    expect(Compile(Sale).Check(made.body)).toBe(true);
    const open = await call<SessionBody>('GET', `${server.url}/api/checkout/sessions/${session.id}`, {
      headers: merchant.keys,
    });
    expect(open.body).toMatchObject({ status: 'open', saleId: res.body.saleId });

    expect((await moveTo(server, merchant, res.body.saleId, 'PAGO')).status).toBe(200);
    const paid = await call<SessionBody>('GET', `${server.url}/api/checkout/sessions/${session.id}`, {
      headers: merchant.keys,
    });
    expect(paid.body).toMatchObject({ status: 'paid', saleId: res.body.saleId });
    const shown = await page(`/checkout/${session.id}`);
    expect(shown.body).toMatchObject({
      status: 'paid',
      redirectUrl: `https://loja.example.com/obrigado?pedido=1001&session_id=${session.id}`,
    });
    const twice = await pay(`/checkout/${session.id}`, PAYER);
    expect(twice.status).toBe(410);
    expect(twice.body).toEqual({ error: 'GONE', message: 'This checkout session is already paid' });
  });

  it('answer 410 once expired and 404 for an unknown id; the merchant API keeps other accounts out', async () => {
    const session = await createSession(server, merchant);
    await db().query(`UPDATE checkout_sessions SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      session.id,
    ]);
    expect((await page(`/checkout/${session.id}`)).body).toEqual({
      error: 'GONE',
      message: 'This checkout session has expired',
    });
    const before = await countRows(server, 'sales');
    expect((await pay(`/checkout/${session.id}`, PAYER)).status).toBe(410);
    expect(await countRows(server, 'sales')).toBe(before);
    for (const id of ['0b6f1c3e-5a8e-4c6a-9d1b-2f6f0d3a8e41', 'nope']) {
      const missing = await page(`/checkout/${id}`);
      expect(missing.status, id).toBe(404);
      expect(missing.body).toEqual({ error: 'NOT_FOUND', message: 'Checkout session not found' });
    }
    const theirs = await createSession(server, other);
    const read = await call('GET', `${server.url}/api/checkout/sessions/${theirs.id}`, {
      headers: merchant.keys,
    });
    expect(read.status).toBe(404);
  });
});
