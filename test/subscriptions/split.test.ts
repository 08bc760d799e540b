/**
 * A subscription that splits (a course platform sharing a monthly fee with its teacher): `split` on POST
 * /api/subscriptions, checked as a charge's against the plan's amount (400 shape D, nothing written), carried by
 * every period's sale (its Sale's split, the recipient's share in its balance); a plan change the split no longer
 * fits is refused.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { unseal } from '../../src/platform/crypto/sealed.js';
import { cardBody, cardEnding } from '../cards/cards.js';
import { createRecipient, recipientBalance } from '../recipients/fixtures.js';
import { CUSTOMER } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let platform: TestMerchant;

beforeAll(async () => {
  server = await startServer({ workers: false });
  platform = await createMerchant(server, 'Plataforma de Cursos');
});
afterAll(() => server?.close());

const api = <T>(method: string, path: string, body?: unknown) =>
  call<T & { error?: string; message?: string }>(method, `${server.url}${path}`, {
    headers: platform.keys,
    ...(body === undefined ? {} : { body }),
  });
const tomorrow = () =>
  new Date(Date.now() + 86_400_000).toLocaleDateString('sv-SE', { timeZone: 'America/Sao_Paulo' });

/** The types of a subscription's events, oldest first (GET /api/events). */
async function factsOf(subscriptionId: string): Promise<string[]> {
  const listed = await api<{ data: { type: string; data: { id: string } }[] }>(
    'GET',
    '/api/events?limit=100',
  );
  return listed.body.data
    .filter((e) => e.data.id === subscriptionId)
    .map((e) => e.type)
    .reverse();
}

/** A customer with a saved approved card, and a card plan of 100.00 billed every `interval`. */
async function cardCustomerAndPlan(email: string, planName: string, interval: 'week' | 'month') {
  const customer = await api<{ id: string }>('POST', '/api/customers', { ...CUSTOMER, email });
  const token = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
    headers: { 'x-api-public-key': platform.publicKey },
    body: cardBody(cardEnding('1')),
  });
  const card = await api<{ id: string }>('POST', `/api/customers/${customer.body.id}/cards`, {
    token: token.body.token,
  });
  const plan = await api<{ id: string }>('POST', '/api/plans', {
    name: planName,
    amountCents: 10000,
    interval,
    methods: ['CREDIT_CARD'],
  });
  return { customerId: customer.body.id, cardId: card.body.id, planId: plan.body.id };
}

it('every period’s sale carries the subscription’s split; a split that cannot be, or a plan it no longer fits, is 400', async () => {
  const teacher = await createRecipient(server, platform, { name: 'Professora Ana' });
  const { customerId, cardId, planId } = await cardCustomerAndPlan(CUSTOMER.email, 'Curso mensal', 'month');
  const body = {
    customerId,
    planId,
    paymentMethod: 'CREDIT_CARD',
    cardId,
    startDate: tomorrow(),
  };
  const tooMuch = await api('POST', '/api/subscriptions', {
    ...body,
    split: [{ recipientId: teacher.id, amountCents: 10001 }],
  });
  expect(tooMuch.status).toBe(400);
  expect(tooMuch.body).toEqual({
    message: expect.stringMatching(/more than the charge's amount/),
    error: 'VALIDATION_ERROR',
  });
  expect((await api<{ data: unknown[] }>('GET', '/api/subscriptions')).body.data).toEqual([]);

  const made = await api<{ id: string; split: unknown }>('POST', '/api/subscriptions', {
    ...body,
    split: [{ recipientId: teacher.id, percent: 70, liable: true }],
  });
  expect(made.status, made.text).toBe(201);
  expect(made.body.split).toEqual([{ recipientId: teacher.id, percent: 70, liable: true }]);
  for (let period = 0; period < 2; period++) {
    const advanced = await api<{ status: string }>(
      'POST',
      `/api/sandbox/subscriptions/${made.body.id}/advance`,
    );
    expect(advanced.body.status).toBe('active');
  }
  const sales = (
    await api<{
      data: {
        subscriptionId?: string;
        status: string;
        split?: { recipientId: string | null; netCents: number }[];
      }[];
    }>('GET', '/api/transactions?limit=10')
  ).body.data.filter((s) => s.subscriptionId === made.body.id);
  expect(sales.map((s) => s.status)).toEqual(['PAGO', 'PAGO']);
  for (const sale of sales) {
    expect(sale.split?.find((p) => p.recipientId === teacher.id)?.netCents).toBe(7000);
  }
  // two periods' shares: card installments, each period's 7000 to come
  expect(await recipientBalance(server, platform, teacher.id)).toMatchObject({ receivable: 14000 });

  // a cheaper plan the 70 % still fits is fine; one whose fee the platform's share cannot pay is not
  const cheap = await api<{ id: string }>('POST', '/api/plans', {
    name: 'Curso promocional',
    amountCents: 5000,
    interval: 'month',
    methods: ['CREDIT_CARD'],
  });
  expect((await api('PATCH', `/api/subscriptions/${made.body.id}`, { planId: cheap.body.id })).status).toBe(
    200,
  );
  const fixed = await api<{ id: string }>('POST', '/api/subscriptions', {
    ...body,
    split: [{ recipientId: teacher.id, amountCents: 8000 }],
  });
  expect(fixed.status, fixed.text).toBe(201);
  const refused = await api('PATCH', `/api/subscriptions/${fixed.body.id}`, { planId: cheap.body.id });
  expect(refused.status).toBe(400);
  expect(refused.body.error).toBe('VALIDATION_ERROR');
});

it('a period whose recipient was deactivated fails as a refused card’s does: invoice.failed, dunning, no sale', async () => {
  const teacher = await createRecipient(server, platform, { name: 'Professor Beto' });
  const { customerId, cardId, planId } = await cardCustomerAndPlan(
    'beto@example.com',
    'Curso semanal',
    'week',
  );
  const made = await api<{ id: string }>('POST', '/api/subscriptions', {
    customerId,
    planId,
    paymentMethod: 'CREDIT_CARD',
    cardId,
    startDate: tomorrow(),
    split: [{ recipientId: teacher.id, percent: 50 }],
  });
  expect(made.status, made.text).toBe(201);
  const advance = () =>
    api<{ status: string; nextChargeAt: string | null }>(
      'POST',
      `/api/sandbox/subscriptions/${made.body.id}/advance`,
    );
  expect((await advance()).body.status).toBe('active');
  const off = await api('PATCH', `/api/recipients/${teacher.id}`, { active: false });
  expect(off.status, off.text).toBe(200);
  server.logs.expect('subscription charge could not be made');
  const failed = await advance();
  expect(failed.status, failed.text).toBe(200);
  expect(failed.body.status).toBe('past_due');
  const events = await factsOf(made.body.id);
  expect(events.slice(-2)).toEqual(['invoice.failed', 'subscription.past_due']);
  // the customer is told the charge was not made, never that their card refused it, nor to change it
  const mails = await server.runtime.platform.db.query<{ text_body: string }>(
    `SELECT text_body FROM mail_messages WHERE recipient = 'beto@example.com' AND subject LIKE '%não conseguimos cobrar%'`,
  );
  expect(mails).toHaveLength(1);
  const text = unseal(server.runtime.platform.config.secretsKey, mails[0]!.text_body);
  expect(text).toContain('Não conseguimos fazer a cobrança de R$');
  expect(text).not.toContain('recusou');
  expect(text).not.toContain('Trocar o cartão');
});

it('a PIX first period whose recipient was deactivated fails too: invoice.failed, still incomplete, retried', async () => {
  const teacher = await createRecipient(server, platform, { name: 'Professora Carla' });
  const customer = await api<{ id: string }>('POST', '/api/customers', {
    ...CUSTOMER,
    email: 'carla@example.com',
  });
  const plan = await api<{ id: string }>('POST', '/api/plans', {
    name: 'Curso Pix',
    amountCents: 10000,
    interval: 'month',
    methods: ['PIX'],
  });
  const made = await api<{ id: string }>('POST', '/api/subscriptions', {
    customerId: customer.body.id,
    planId: plan.body.id,
    paymentMethod: 'PIX',
    startDate: tomorrow(),
    split: [{ recipientId: teacher.id, percent: 50 }],
  });
  expect(made.status, made.text).toBe(201);
  expect((await api('PATCH', `/api/recipients/${teacher.id}`, { active: false })).status).toBe(200);
  server.logs.expect('subscription charge could not be made');
  const failed = await api<{ status: string; nextChargeAt: string | null }>(
    'POST',
    `/api/sandbox/subscriptions/${made.body.id}/advance`,
  );
  expect(failed.status, failed.text).toBe(200);
  expect(failed.body.status).toBe('incomplete');
  const events = await factsOf(made.body.id);
  expect(events).toEqual(['subscription.created', 'invoice.failed']);
});
