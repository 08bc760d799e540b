/**
 * Subscriptions without code: plans, customers and subscriptions made by the panel's session through the API's own
 * routes (errors in shape A, the permission to issue charges); a card subscription made without a card e-mails the
 * customer their billing page, which takes the card and charges the first period at once; the billing page of a
 * Pix period carries its QR code; every subscription e-mail and the page say test mode in the sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardBody, cardEnding } from '../cards/cards.js';
import { CUSTOMER } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { Mailbox } from '../support/mailbox.js';
import { startServer, type TestServer } from '../support/server.js';
import { addTeamUser } from '../support/team.js';
import { waitUntil } from '../support/wait.js';

let mailbox: Mailbox;
let server: TestServer;
let merchant: TestMerchant;

interface Sub {
  id: string;
  status: string;
  cardId: string | null;
  nextChargeAt: string | null;
  billingUrl: string;
}
interface Billing {
  status: string;
  card: { lastFour: string } | null;
  sales: { id: string; status: string; pixCopyPaste: string | null; pixQrCode: string | null }[];
}

beforeAll(async () => {
  mailbox = await Mailbox.start();
  server = await startServer({ env: { SMTP_URL: mailbox.url } });
  merchant = await createMerchant(server, 'Escola de Música');
});
afterAll(async () => {
  await server?.close();
  await mailbox?.stop();
});

/** By the panel's session (cookie and CSRF token), as the panel's Assinaturas calls them. */
const panel = <T>(method: string, path: string, body?: unknown, headers = merchant.panel) =>
  call<T>(method, `${server.url}${path}`, { headers, ...(body === undefined ? {} : { body }) });
const api = <T>(method: string, path: string, body?: unknown) =>
  call<T>(method, `${server.url}${path}`, {
    headers: merchant.keys,
    ...(body === undefined ? {} : { body }),
  });
const tokenOf = (billingUrl: string) => new URL(billingUrl).pathname.split('/').pop()!;
const person = (n: string, document: string) => ({
  ...CUSTOMER,
  name: `Aluno ${n}`,
  email: `aluno-${n}-${Date.now()}@example.com`,
  document,
});

describe('subscriptions made in the panel', () => {
  it('the panel session makes plans, customers and subscriptions by the API routes; errors in shape A', async () => {
    const plan = await panel<{ id: string; name: string }>('POST', '/api/plans', {
      name: 'Aulas de violão',
      amountCents: 15_000,
      interval: 'month',
      methods: ['CREDIT_CARD', 'PIX'],
    });
    expect(plan.status, plan.text).toBe(201);
    // the same plan read by the API key: one route, two doors
    expect((await api<{ name: string }>('GET', `/api/plans/${plan.body.id}`)).body.name).toBe(
      'Aulas de violão',
    );
    const customer = await panel<{ id: string }>('POST', '/api/customers', person('a', '52998224725'));
    expect(customer.status, customer.text).toBe(201);
    const sub = await panel<Sub>('POST', '/api/subscriptions', {
      customerId: customer.body.id,
      planId: plan.body.id,
      paymentMethod: 'PIX',
    });
    expect(sub.status, sub.text).toBe(201);
    expect(sub.body.status).toBe('incomplete');
    const off = await panel<Sub>('PATCH', `/api/plans/${plan.body.id}`, { active: false });
    expect(off.status, off.text).toBe(200);

    // bad input: the documented 400, in the panel's envelope (the key's shape D by the other door)
    const bad = await panel<{ success: boolean; error: { code: string; message: string } }>(
      'POST',
      '/api/plans',
      { name: 'www.example.com', amountCents: 100, interval: 'month', methods: ['PIX'] },
    );
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    const badKey = await api<{ error: string }>('POST', '/api/plans', {
      name: 'Plano',
      amountCents: 0,
      interval: 'month',
      methods: ['PIX'],
    });
    expect(badKey.status).toBe(400);
    expect(badKey.body.error).toBe('VALIDATION_ERROR');
    const inactive = await panel<{ error: { code: string; message: string } }>('POST', '/api/subscriptions', {
      customerId: customer.body.id,
      planId: plan.body.id,
      paymentMethod: 'PIX',
    });
    expect(inactive.status).toBe(400);
    expect(inactive.body.error.message).toContain('inactive plan');

    // without the CSRF token, or with a role that may not issue charges: 403, nothing made
    const { cookie } = merchant.panel as { cookie: string };
    const noCsrf = await panel(
      'POST',
      '/api/plans',
      { name: 'X', amountCents: 100, interval: 'month', methods: ['PIX'] },
      { cookie },
    );
    expect(noCsrf.status).toBe(403);
    const viewer = await addTeamUser(server.url, merchant, mailbox, 'viewer');
    const refused = await panel<{ error: { code: string } }>(
      'POST',
      '/api/plans',
      { name: 'X', amountCents: 100, interval: 'month', methods: ['PIX'] },
      viewer.panel,
    );
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    const plans = await api<{ data: unknown[] }>('GET', '/api/plans');
    expect(plans.body.data).toHaveLength(1);
  });

  it('a card subscription without a card e-mails the billing page, which takes the card and charges the first period', async () => {
    const plan = await panel<{ id: string }>('POST', '/api/plans', {
      name: 'Plano Piano',
      amountCents: 19_990,
      interval: 'month',
      methods: ['CREDIT_CARD'],
    });
    const who = person('b', '11144477735');
    const customer = await panel<{ id: string }>('POST', '/api/customers', who);
    const sub = await panel<Sub>('POST', '/api/subscriptions', {
      customerId: customer.body.id,
      planId: plan.body.id,
      paymentMethod: 'CREDIT_CARD',
    });
    expect(sub.status, sub.text).toBe(201);
    // it waits for the customer's card: nothing is charged before it
    expect(sub.body).toMatchObject({ status: 'incomplete', cardId: null, nextChargeAt: null });
    const mail = await mailbox.waitFor(who.email, /Plano Piano: cadastre o cartão/);
    expect(mail.subject).toBe('[Teste] Plano Piano: cadastre o cartão para começar');
    expect(mail.text).toContain(sub.body.billingUrl);
    expect(mail.text).toContain('Escola de Música');
    expect(mail.text).toContain('Modo de teste');

    const token = tokenOf(sub.body.billingUrl);
    const page = await call('GET', `${server.url}/billing/${token}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Modo de teste');
    // a refused card: the first try failed, the subscription still waits (retried as dunning)
    const refused = await call<Billing>('POST', `${server.url}/api/public/billing/${token}/card`, {
      body: cardBody(cardEnding('2')),
    });
    expect(refused.status, refused.text).toBe(200);
    expect(refused.body.status).toBe('incomplete');
    expect(refused.body.sales.map((s) => s.status)).toEqual(['RECUSADO']);
    // another card: charged at once, while the customer waits
    const paid = await call<Billing>('POST', `${server.url}/api/public/billing/${token}/card`, {
      body: cardBody(cardEnding('1')),
    });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body.status).toBe('active');
    expect(paid.body.sales[0]!.status).toBe('PAGO');
    const sale = await api<{ subscriptionId: string; amount: number; customer: { email: string } }>(
      'GET',
      `/api/transactions/${paid.body.sales[0]!.id}`,
    );
    expect(sale.body).toMatchObject({
      subscriptionId: sub.body.id,
      amount: 19_990,
      customer: { email: who.email },
    });
    const after = await api<Sub>('GET', `/api/subscriptions/${sub.body.id}`);
    expect(after.body.status).toBe('active');
    expect(after.body.cardId).not.toBeNull();
    // the refusal was read on the page, where another card paid at once: no e-mail of it follows
    const failures = await server.runtime.platform.db.query(
      'SELECT 1 FROM mail_messages WHERE cause LIKE $1',
      [`subscription-failed:${sub.body.id}:%`],
    );
    expect(failures).toHaveLength(0);
    // every e-mail of the subscription says it is a test
    const sent = mailbox.to(who.email);
    expect(sent.length).toBeGreaterThanOrEqual(1);
    for (const m of sent) {
      expect(m.subject.startsWith('[Teste] ')).toBe(true);
      expect(m.text).toContain('Modo de teste');
    }
  });

  it('cards given from two tabs at once: the period is charged once, and both pages show it paid', async () => {
    const plan = await api<{ id: string }>('POST', '/api/plans', {
      name: 'Plano Violino',
      amountCents: 7_000,
      interval: 'month',
      methods: ['CREDIT_CARD'],
    });
    const customer = await api<{ id: string }>('POST', '/api/customers', person('d', '11144477735'));
    const sub = await api<Sub>('POST', '/api/subscriptions', {
      customerId: customer.body.id,
      planId: plan.body.id,
      paymentMethod: 'CREDIT_CARD',
    });
    expect(sub.status, sub.text).toBe(201);
    const token = tokenOf(sub.body.billingUrl);
    // the second finds the try being made by the first (as it would find the running scheduler's): it waits
    // for its outcome rather than answer with the subscription as it was
    const answers = await Promise.all(
      ['1', '4'].map((digit) =>
        call<Billing>('POST', `${server.url}/api/public/billing/${token}/card`, {
          body: cardBody(cardEnding(digit)),
        }),
      ),
    );
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.status).toBe('active');
    }
    const after = await api<Sub>('GET', `/api/subscriptions/${sub.body.id}`);
    expect(after.body.status).toBe('active');
    const sales = (
      await api<{ data: { subscriptionId?: string; status: string }[] }>('GET', '/api/transactions?limit=100')
    ).body.data.filter((s) => s.subscriptionId === sub.body.id);
    expect(sales.map((s) => s.status)).toEqual(['PAGO']);
  });

  it('one never given its card expires after its deadline; a card given after is refused (409)', async () => {
    const plan = await api<{ id: string }>('POST', '/api/plans', {
      name: 'Plano Flauta',
      amountCents: 5_000,
      interval: 'week',
      methods: ['CREDIT_CARD'],
    });
    const customer = await api<{ id: string }>('POST', '/api/customers', person('c', '39053344705'));
    // by the API key too: cardId left out asks the customer for the card
    const sub = await api<Sub>('POST', '/api/subscriptions', {
      customerId: customer.body.id,
      planId: plan.body.id,
      paymentMethod: 'CREDIT_CARD',
    });
    expect(sub.body).toMatchObject({ status: 'incomplete', cardId: null, nextChargeAt: null });
    const [row] = await server.runtime.platform.db.query<{ hours: number }>(
      `SELECT round(extract(epoch FROM incomplete_expires_at - created_at) / 3600)::int AS hours
         FROM subscriptions WHERE uuid = $1`,
      [sub.body.id],
    );
    expect(row!.hours).toBe(23);
    await server.runtime.platform.db.query(
      'UPDATE subscriptions SET incomplete_expires_at = now() WHERE uuid = $1',
      [sub.body.id],
    );
    await waitUntil(
      async () =>
        (await api<Sub>('GET', `/api/subscriptions/${sub.body.id}`)).body.status === 'incomplete_expired',
    );
    const late = await call<{ error: string }>(
      'POST',
      `${server.url}/api/public/billing/${tokenOf(sub.body.billingUrl)}/card`,
      { body: cardBody(cardEnding('1')) },
    );
    expect(late.status).toBe(409);
    expect(late.body.error).toBe('INVALID_STATUS');
  });

  it("a Pix period's billing page carries its QR code beside the copy-and-paste code", async () => {
    const plan = await api<{ id: string }>('POST', '/api/plans', {
      name: 'Plano Canto',
      amountCents: 7_500,
      interval: 'month',
      methods: ['PIX'],
    });
    const customer = await api<{ id: string }>('POST', '/api/customers', person('d', '86288366757'));
    const sub = await api<Sub>('POST', '/api/subscriptions', {
      customerId: customer.body.id,
      planId: plan.body.id,
      paymentMethod: 'PIX',
    });
    const token = tokenOf(sub.body.billingUrl);
    const billing = await waitUntil(async () => {
      const b = await call<Billing>('GET', `${server.url}/api/public/billing/${token}`);
      return b.body.sales[0]?.pixCopyPaste ? b.body : undefined;
    });
    const open = billing.sales[0]!;
    expect(open.pixQrCode).toMatch(/^data:image\/svg\+xml;base64,/);
    const svg = Buffer.from(open.pixQrCode!.split(',')[1]!, 'base64').toString('utf8');
    expect(svg).toContain('<svg');
  });
});
