/**
 * Plans and subscriptions (decisions.md, "Subscriptions and saved cards"): a saved card charged once per period
 * through the sandbox's advance (the scheduler's own code), dunning on the retry days with past_due and unpaid,
 * a new card reactivating it, a plan change at the next period, cancellation, the customer's e-mails and the
 * subscription.* and invoice.* events; another account sees none of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatLine } from '../../src/payment-standards/index.js';
import { addDays } from '../../src/platform/time/calendar.js';
import { fromSaoPaulo } from '../../src/platform/time/sao-paulo.js';
import { cardBody, cardEnding } from '../cards/cards.js';
import { CUSTOMER } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { Mailbox } from '../support/mailbox.js';
import { startServer, type TestServer } from '../support/server.js';
import { addTeamUser } from '../support/team.js';
import { waitUntil } from '../support/wait.js';

interface Sub {
  id: string;
  status: string;
  planId: string;
  nextPlanId: string | null;
  cardId: string | null;
  currentPeriodStart: string;
  currentPeriodEnd: string;
  nextChargeAt: string | null;
  trialEnd: string | null;
  cancelAtPeriodEnd: boolean;
  billingUrl: string | null;
}
interface Sale {
  uuid: string;
  status: string;
  amount: number;
  subscriptionId?: string;
  expiresAt?: string | null;
}

let server: TestServer;
let merchant: TestMerchant;
let other: TestMerchant;
let mailbox: Mailbox;

beforeAll(async () => {
  mailbox = await Mailbox.start();
  server = await startServer({ env: { SMTP_URL: mailbox.url } });
  merchant = await createMerchant(server);
  other = await createMerchant(server, 'Other Merchant');
});
afterAll(async () => {
  await server?.close();
  await mailbox?.stop();
});

const api = <T>(method: string, path: string, body?: unknown, who = merchant) =>
  call<T & { error?: string; message?: string }>(method, `${server.url}${path}`, {
    headers: who.keys,
    ...(body === undefined ? {} : { body }),
  });

async function savedCard(customerId: string, lastDigit: string): Promise<string> {
  const token = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
    headers: { 'x-api-public-key': merchant.publicKey },
    body: cardBody(cardEnding(lastDigit)),
  });
  const saved = await api<{ id: string }>('POST', `/api/customers/${customerId}/cards`, {
    token: token.body.token,
  });
  expect(saved.status, saved.text).toBe(201);
  return saved.body.id;
}

async function customer(email = 'assinante@example.com'): Promise<string> {
  const made = await api<{ id: string }>('POST', '/api/customers', { ...CUSTOMER, email });
  expect(made.status, made.text).toBe(201);
  return made.body.id;
}

async function plan(body: Record<string, unknown> = {}): Promise<string> {
  const made = await api<{ id: string }>('POST', '/api/plans', {
    name: 'Academia',
    amountCents: 9990,
    interval: 'month',
    methods: ['CREDIT_CARD', 'PIX'],
    ...body,
  });
  expect(made.status, made.text).toBe(201);
  return made.body.id;
}

const advance = (id: string, who = merchant) =>
  api<Sub>('POST', `/api/sandbox/subscriptions/${id}/advance`, undefined, who);
const salesOf = async (id: string) =>
  (await api<{ data: Sale[] }>('GET', '/api/transactions?limit=100')).body.data.filter(
    (s) => s.subscriptionId === id,
  );
/**
 * The sales of a subscription once its first is there: a PIX or boleto subscription is due at once, so the
 * running scheduler may be opening its first charge when the test's advance comes, and the advance answers
 * before that sale is committed.
 */
const firstSales = (id: string) =>
  waitUntil(async () => {
    const sales = await salesOf(id);
    return sales.length > 0 && sales;
  });
const eventsOf = async (id: string) =>
  (await api<{ data: { type: string; data: { id: string } }[] }>('GET', '/api/events?limit=100')).body.data
    .filter((e) => e.data.id === id)
    .map((e) => e.type)
    .reverse();
// a card subscription starting tomorrow is due tomorrow: the running scheduler leaves it to the test's advance;
// a PIX or boleto one is due now (5 days ahead), so its first charge may be the scheduler's: those tests read the
// sale the advance or the scheduler opened, never the first advance's answer
const tomorrowSp = () =>
  new Date(Date.now() + 86_400_000).toLocaleDateString('sv-SE', { timeZone: 'America/Sao_Paulo' });
const todaySp = () => new Date().toLocaleDateString('sv-SE', { timeZone: 'America/Sao_Paulo' });
const addDaysSp = addDays;
const subscribe = (body: Record<string, unknown>) =>
  api<Sub>('POST', '/api/subscriptions', { startDate: tomorrowSp(), ...body });

/** The facts of a first period refused on every try until the last: created, four failures, expired. */
const REFUSED_UNTIL_EXPIRED = [
  'subscription.created',
  ...Array<string>(4).fill('invoice.failed'),
  'subscription.incomplete_expired',
];

describe('plans', () => {
  it('are created, listed, renamed and deactivated; the amount never changes; bad ones are 400', async () => {
    const id = await plan({ intervalCount: 3, trialDays: 7 });
    const one = await api<Record<string, unknown>>('GET', `/api/plans/${id}`);
    expect(one.body).toMatchObject({
      amountCents: 9990,
      interval: 'month',
      intervalCount: 3,
      trialDays: 7,
      active: true,
    });
    const renamed = await api('PATCH', `/api/plans/${id}`, { name: 'Trimestral', active: false });
    expect(renamed.body).toMatchObject({ name: 'Trimestral', active: false, amountCents: 9990 });
    const repriced = await api('PATCH', `/api/plans/${id}`, { amountCents: 1 });
    expect(repriced.status).toBe(400);
    expect(repriced.body.message).toMatch(/"amountCents" is not a field it takes/);
    for (const bad of [
      { interval: 'day' },
      { intervalCount: 13 },
      { trialDays: 91 },
      { methods: [] },
      { methods: ['DEBIT_CARD'] },
      { amountCents: 0 },
    ]) {
      const res = await api('POST', '/api/plans', {
        name: 'x',
        amountCents: 100,
        interval: 'month',
        methods: ['PIX'],
        ...bad,
      });
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
    expect((await api('GET', `/api/plans/${id}`, undefined, other)).status).toBe(404);
    const page = await api<{ data: { id: string }[] }>('GET', '/api/plans');
    expect(page.body.data.map((p) => p.id)).toContain(id);
  });
});

describe('subscriptions by card', () => {
  it('charge one sale per period carrying subscriptionId, and renew on the next period', async () => {
    const customerId = await customer();
    const cardId = await savedCard(customerId, '1');
    const planId = await plan();
    const made = await subscribe({
      customerId,
      planId,
      paymentMethod: 'CREDIT_CARD',
      cardId,
    });
    expect(made.status, made.text).toBe(201);
    // incomplete until its first period is paid
    expect(made.body).toMatchObject({
      status: 'incomplete',
      currentPeriodStart: tomorrowSp(),
      trialEnd: null,
    });
    // the next charge is the first period's: its start, for a card (never a scheduler's lease)
    expect(made.body.nextChargeAt).toBe(fromSaoPaulo(`${tomorrowSp()}T00:00:00`).toISOString());
    expect(made.body.billingUrl).toMatch(/\/billing\/[A-Za-z0-9_-]{32}$/);
    expect((await api('GET', `/api/subscriptions/${made.body.id}`, undefined, other)).status).toBe(404);
    const foreign = await advance(made.body.id, other);
    expect(foreign.status).toBe(404);
    // an API-key route of subscriptions: shape D
    expect(foreign.body).toEqual({ message: expect.any(String), error: 'NOT_FOUND' });

    const first = await advance(made.body.id);
    expect(first.status, first.text).toBe(200);
    expect(first.body.status).toBe('active');
    let sales = await salesOf(made.body.id);
    expect(sales.map((s) => [s.status, s.amount])).toEqual([['PAGO', 9990]]);
    const start = made.body.currentPeriodStart;
    expect(first.body.currentPeriodStart).toBe(start);
    // the next period's charge: its first day's start in São Paulo
    expect(first.body.nextChargeAt).toBe(
      fromSaoPaulo(`${first.body.currentPeriodEnd}T00:00:00`).toISOString(),
    );

    const second = await advance(made.body.id);
    expect(second.body.status).toBe('active');
    expect(second.body.currentPeriodStart).toBe(first.body.currentPeriodEnd);
    sales = await salesOf(made.body.id);
    expect(sales.map((s) => s.status)).toEqual(['PAGO', 'PAGO']);
    // the list filtered by the subscription finds the same, by either door; a bad id is 400
    const filtered = await api<{ data: Sale[] }>('GET', `/api/transactions?subscriptionId=${made.body.id}`);
    expect(filtered.body.data.map((s) => s.uuid)).toEqual(sales.map((s) => s.uuid));
    const byPanel = await call<{ data: Sale[] }>(
      'GET',
      `${server.url}/api/sales?subscriptionId=${made.body.id}`,
      { headers: merchant.panel },
    );
    expect(byPanel.body.data.map((s) => s.uuid)).toEqual(sales.map((s) => s.uuid));
    expect((await api('GET', '/api/transactions?subscriptionId=12')).status).toBe(400);
    // the subscription itself by the panel's session too (its page); another account's is not found
    const one = await call<Sub>('GET', `${server.url}/api/subscriptions/${made.body.id}`, {
      headers: merchant.panel,
    });
    expect(one.body.status).toBe('active');
    expect(one.body.billingUrl).toBe(made.body.billingUrl);
    // the customer's page acts as the customer (a new card, a cancellation): a caller who may only read gets none
    const readKey = await call<{ publicKey: string; privateKey: string }>(
      'POST',
      `${server.url}/api/credentials`,
      {
        headers: merchant.panel,
        body: { scope: 'read' },
      },
    );
    const reader = {
      'x-api-public-key': readKey.body.publicKey,
      'x-api-private-key': readKey.body.privateKey,
    };
    const viewer = await addTeamUser(server.url, merchant, mailbox, 'viewer');
    for (const headers of [reader, viewer.panel]) {
      const seen = await call<Sub>('GET', `${server.url}/api/subscriptions/${made.body.id}`, { headers });
      expect(seen.status, seen.text).toBe(200);
      expect(seen.body.billingUrl).toBeNull();
      const listed = await call<{ data: Sub[] }>('GET', `${server.url}/api/subscriptions`, { headers });
      expect(listed.body.data.map((s) => s.billingUrl)).toEqual(listed.body.data.map(() => null));
    }
    expect(
      (await call('GET', `${server.url}/api/subscriptions/${made.body.id}`, { headers: other.panel })).status,
    ).toBe(404);
    expect(await eventsOf(made.body.id)).toEqual([
      'subscription.created',
      'invoice.paid',
      'subscription.activated',
      'invoice.paid',
      'subscription.renewed',
    ]);
  });

  it('on a saved card: the customer is e-mailed their page when it is made, the only e-mail before a charge', async () => {
    const customerId = await customer('cartao-salvo@example.com');
    const cardId = await savedCard(customerId, '1');
    const planId = await plan({ name: 'Clube do Café' });
    const made = await subscribe({ customerId, planId, paymentMethod: 'CREDIT_CARD', cardId });
    expect(made.status, made.text).toBe(201);
    const mail = await mailbox.waitFor('cartao-salvo@example.com', /Clube do Café: assinatura criada/);
    expect(mail.text).toContain(made.body.billingUrl);
    expect(mail.text).toMatch(/com as cobranças no cartão Visa final \d{4}/);
    expect(mail.text).toContain(
      `A primeira cobrança é feita em ${tomorrowSp().split('-').reverse().join('/')}`,
    );
    expect(mail.text).toContain('troca o cartão e pode cancelar');
    // paid, it is not e-mailed again (once per subscription); a Pix one is not told twice (its charge says it)
    expect((await advance(made.body.id)).body.status).toBe('active');
    const pixCustomer = await customer('pix-sem-boas-vindas@example.com');
    const pix = await subscribe({ customerId: pixCustomer, planId: await plan(), paymentMethod: 'PIX' });
    expect(pix.status, pix.text).toBe(201);
    await advance(pix.body.id);
    await mailbox.waitFor('pix-sem-boas-vindas@example.com', /cobrança de/);
    const started = (to: string) =>
      mailbox.to(to).filter((m) => m.subject.includes('assinatura criada')).length;
    expect([started('cartao-salvo@example.com'), started('pix-sem-boas-vindas@example.com')]).toEqual([1, 0]);
  });

  it('with a trial start trialing and charge when the trial ends', async () => {
    const customerId = await customer();
    const cardId = await savedCard(customerId, '4');
    const planId = await plan({ trialDays: 14, interval: 'week' });
    const made = await subscribe({
      customerId,
      planId,
      paymentMethod: 'CREDIT_CARD',
      cardId,
    });
    expect(made.body.status).toBe('trialing');
    expect(made.body.trialEnd).toBe(made.body.currentPeriodEnd);
    expect(new Date(made.body.nextChargeAt!).getTime()).toBeGreaterThan(Date.now() + 14 * 86_400_000);
    expect((await salesOf(made.body.id)).length).toBe(0);
    const paid = await advance(made.body.id);
    expect(paid.body).toMatchObject({ status: 'active', currentPeriodStart: made.body.trialEnd });
    expect((await eventsOf(made.body.id)).slice(-2)).toEqual(['invoice.paid', 'subscription.activated']);
  });

  it('a trial whose first paid period is refused is incomplete, not past_due (it was never active), then expires', async () => {
    const customerId = await customer('teste-gratis@example.com');
    const refused = await savedCard(customerId, '2');
    const planId = await plan({ trialDays: 7 });
    const made = await subscribe({ customerId, planId, paymentMethod: 'CREDIT_CARD', cardId: refused });
    expect(made.body.status).toBe('trialing');
    const failed = await advance(made.body.id);
    expect(failed.body).toMatchObject({ status: 'incomplete', currentPeriodEnd: made.body.trialEnd });
    expect(failed.body.nextChargeAt).not.toBeNull();
    await advance(made.body.id);
    await advance(made.body.id);
    const expired = await advance(made.body.id);
    expect(expired.body).toMatchObject({ status: 'incomplete_expired', nextChargeAt: null });
    expect(await eventsOf(made.body.id)).toEqual(REFUSED_UNTIL_EXPIRED);
  });

  it('a renewal refused: past_due, retried on the retry days, unpaid after the last; a new card reactivates it', async () => {
    const customerId = await customer('dunning@example.com');
    const good = await savedCard(customerId, '1');
    const refused = await savedCard(customerId, '2');
    const planId = await plan();
    const made = await subscribe({ customerId, planId, paymentMethod: 'CREDIT_CARD', cardId: good });
    expect((await advance(made.body.id)).body.status).toBe('active');
    expect((await api('PATCH', `/api/subscriptions/${made.body.id}`, { cardId: refused })).status).toBe(200);
    const failed = await advance(made.body.id);
    expect(failed.body.status).toBe('past_due');
    const firstFailure = Date.now();
    const days = (at: string | null) => Math.round((new Date(at!).getTime() - firstFailure) / 86_400_000);
    expect(days(failed.body.nextChargeAt)).toBe(1);
    expect(days((await advance(made.body.id)).body.nextChargeAt)).toBe(3);
    expect(days((await advance(made.body.id)).body.nextChargeAt)).toBe(5);
    const unpaid = await advance(made.body.id);
    expect(unpaid.body).toMatchObject({ status: 'unpaid', nextChargeAt: null });
    expect((await salesOf(made.body.id)).map((s) => s.status)).toEqual([
      'RECUSADO',
      'RECUSADO',
      'RECUSADO',
      'RECUSADO',
      'PAGO',
    ]);
    const ended = await advance(made.body.id);
    expect(ended.status).toBe(409);
    expect(ended.body).toEqual({ message: expect.any(String), error: expect.any(String) });
    const dunning = () =>
      mailbox.messages.filter((m) => m.to === 'dunning@example.com' && m.subject.includes('não conseguimos'));
    await waitUntil(() => dunning().length >= 4);
    const mail = dunning()[0]!;
    expect(mail.text).toContain(made.body.billingUrl);

    const changed = await api<Sub>('PATCH', `/api/subscriptions/${made.body.id}`, { cardId: good });
    expect(changed.status, changed.text).toBe(200);
    // the new card is tried at once: the running scheduler takes it within a round
    const back = await waitUntil(async () => {
      const s = await api<Sub>('GET', `/api/subscriptions/${made.body.id}`);
      return s.body.status === 'active' && s.body;
    });
    expect(back.currentPeriodStart).toBe(unpaid.body.currentPeriodEnd);
    expect(await eventsOf(made.body.id)).toEqual([
      'subscription.created',
      'invoice.paid',
      'subscription.activated',
      'invoice.failed',
      'subscription.past_due',
      'invoice.failed',
      'invoice.failed',
      'invoice.failed',
      'subscription.unpaid',
      'invoice.paid',
      'subscription.renewed',
    ]);
  });

  it('a first period refused stays incomplete through its retries, then incomplete_expired: charged no more', async () => {
    const customerId = await customer('incompleta@example.com');
    const refused = await savedCard(customerId, '2');
    const planId = await plan();
    const made = await subscribe({ customerId, planId, paymentMethod: 'CREDIT_CARD', cardId: refused });
    expect(made.body.status).toBe('incomplete');
    const failed = await advance(made.body.id);
    expect(failed.body.status).toBe('incomplete');
    const firstFailure = Date.now();
    expect(Math.round((new Date(failed.body.nextChargeAt!).getTime() - firstFailure) / 86_400_000)).toBe(1);
    // that retry is real: a refused card's end is its last retry, not the 23 hours of a first period awaiting
    // payment, which would have expired it the day before its first retry
    const [deadline] = await server.runtime.platform.db.query<{ at: Date | null }>(
      'SELECT incomplete_expires_at AS at FROM subscriptions WHERE uuid = $1',
      [made.body.id],
    );
    expect(deadline!.at).toBeNull();
    await advance(made.body.id);
    await advance(made.body.id);
    const expired = await advance(made.body.id);
    expect(expired.body).toMatchObject({ status: 'incomplete_expired', nextChargeAt: null });
    expect((await advance(made.body.id)).status).toBe(409);
    // its last e-mail does not offer what it cannot do: a new card does not revive it
    const last = await waitUntil(() =>
      mailbox.messages.find(
        (m) => m.to === 'incompleta@example.com' && m.text.includes('Não faremos novas tentativas'),
      ),
    );
    expect(last.text).toContain('a primeira cobrança não foi paga a tempo e a assinatura não começou');
    expect(last.text).not.toContain('reativar');
    expect(last.text).not.toContain('Trocar o cartão');
    // final: a new card does not bring it back
    const good = await savedCard(customerId, '1');
    expect((await api('PATCH', `/api/subscriptions/${made.body.id}`, { cardId: good })).status).toBe(409);
    expect(await eventsOf(made.body.id)).toEqual(REFUSED_UNTIL_EXPIRED);
  });

  it("cancelled at the period end after the next period's Pix was issued: that charge is made unpayable, no dunning, and it ends then", async () => {
    const customerId = await customer();
    const planId = await plan();
    const made = await subscribe({ customerId, planId, paymentMethod: 'PIX', startDate: todaySp() });
    expect(made.status, made.text).toBe(201);
    const [first] = await firstSales(made.body.id);
    expect((await api('POST', `/api/sandbox/sales/${first!.uuid}/status`, { status: 'PAGO' })).status).toBe(
      200,
    );
    await waitUntil(
      async () => (await api<Sub>('GET', `/api/subscriptions/${made.body.id}`)).body.status === 'active',
    );
    // the next period's Pix is issued (days before it starts), then the customer cancels at the period's end
    await advance(made.body.id);
    const next = await waitUntil(async () => {
      const sales = await salesOf(made.body.id);
      return sales.length === 2 && sales.find((s) => s.status === 'PENDENTE');
    });
    const atEnd = await api<Sub>('POST', `/api/subscriptions/${made.body.id}/cancel`, { atPeriodEnd: true });
    expect(atEnd.body).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
    await waitUntil(
      async () => (await salesOf(made.body.id)).find((s) => s.uuid === next.uuid)?.status === 'CANCELADO',
    );
    // no dunning for a period the customer declined: still active, ending when that period would start
    // (the scheduler ends it when that period would have started: its own time, no charge's)
    await waitUntil(async () => {
      const [row] = await server.runtime.platform.db.query<{ at: Date }>(
        'SELECT next_charge_at AS at FROM subscriptions WHERE uuid = $1',
        [made.body.id],
      );
      return row?.at?.toISOString() === fromSaoPaulo(`${atEnd.body.currentPeriodEnd}T00:00:00`).toISOString();
    });
    const after = (await api<Sub>('GET', `/api/subscriptions/${made.body.id}`)).body;
    // and it promises no next charge, before as after the declined charge's outcome
    expect(atEnd.body.nextChargeAt).toBeNull();
    expect(after).toMatchObject({ status: 'active', cancelAtPeriodEnd: true, nextChargeAt: null });
    // the customer's billing page says what the API says
    const token = after.billingUrl!.split('/').pop();
    const page = await call<{ nextChargeAt: string | null; cancelAtPeriodEnd: boolean }>(
      'GET',
      `${server.url}/api/public/billing/${token}`,
    );
    expect(page.status, page.text).toBe(200);
    expect(page.body).toMatchObject({ cancelAtPeriodEnd: true, nextChargeAt: null });
    expect(await eventsOf(made.body.id)).not.toContain('subscription.past_due');
    const ended = await advance(made.body.id);
    expect(ended.body.status).toBe('canceled');
  });

  it('a first period not paid within 23 hours expires: the running scheduler ends it and cancels its open charge', async () => {
    const customerId = await customer();
    const planId = await plan();
    const made = await subscribe({ customerId, planId, paymentMethod: 'PIX', startDate: todaySp() });
    expect(made.status, made.text).toBe(201);
    // the scheduler issues the first period's charge with due date (today) at once
    const [open] = await waitUntil(async () => {
      const sales = await salesOf(made.body.id);
      return sales.length === 1 && sales;
    });
    expect(open!.status).toBe('PENDENTE');
    const issued = await api<Sub>('GET', `/api/subscriptions/${made.body.id}`);
    expect(issued.body.status).toBe('incomplete');
    // while the charge waits for payment, the next charge is the next period's, never a lease
    expect(issued.body.nextChargeAt).toBe(
      fromSaoPaulo(`${addDaysSp(issued.body.currentPeriodEnd, -5)}T00:00:00`).toISOString(),
    );
    // 23 hours on (and past the charge's due date): its deadline is moved to now rather than waited for
    await server.runtime.platform.db.query(
      `UPDATE subscriptions SET incomplete_expires_at = now() WHERE uuid = $1`,
      [made.body.id],
    );
    const expired = await waitUntil(async () => {
      const s = await api<Sub>('GET', `/api/subscriptions/${made.body.id}`);
      return s.body.status === 'incomplete_expired' && s.body;
    });
    expect(expired.nextChargeAt).toBeNull();
    await waitUntil(async () => (await salesOf(made.body.id))[0]?.status === 'CANCELADO');
    expect((await eventsOf(made.body.id)).at(-1)).toBe('subscription.incomplete_expired');
  });

  it('change plan at the next period, and cancel at the period end or now', async () => {
    const customerId = await customer();
    const cardId = await savedCard(customerId, '1');
    const planId = await plan();
    const dearer = await plan({ name: 'Premium', amountCents: 19990 });
    const yearly = await plan({ interval: 'year' });
    const made = await subscribe({
      customerId,
      planId,
      paymentMethod: 'CREDIT_CARD',
      cardId,
    });
    await advance(made.body.id);
    expect((await api('PATCH', `/api/subscriptions/${made.body.id}`, { planId: yearly })).status).toBe(400);
    const changed = await api<Sub>('PATCH', `/api/subscriptions/${made.body.id}`, { planId: dearer });
    expect(changed.body).toMatchObject({ planId, nextPlanId: dearer });
    const renewed = await advance(made.body.id);
    expect(renewed.body).toMatchObject({ planId: dearer, nextPlanId: null });
    expect((await salesOf(made.body.id)).map((s) => s.amount)).toEqual([19990, 9990]);

    // changed before its first period is paid: that period, its current one, is charged at the plan it was made
    // with, and the next at the new one
    const early = await subscribe({ customerId, planId, paymentMethod: 'CREDIT_CARD', cardId });
    expect(early.body.status).toBe('incomplete');
    const earlyChange = await api<Sub>('PATCH', `/api/subscriptions/${early.body.id}`, { planId: dearer });
    expect(earlyChange.body).toMatchObject({ planId, nextPlanId: dearer });
    const firstPaid = await advance(early.body.id);
    expect(firstPaid.body).toMatchObject({ status: 'active', planId, nextPlanId: dearer });
    expect((await salesOf(early.body.id)).map((s) => s.amount)).toEqual([9990]);
    const renewedEarly = await advance(early.body.id);
    expect(renewedEarly.body).toMatchObject({ planId: dearer, nextPlanId: null });
    expect((await salesOf(early.body.id)).map((s) => s.amount)).toEqual([19990, 9990]);

    const atEnd = await api<Sub>('POST', `/api/subscriptions/${made.body.id}/cancel`, { atPeriodEnd: true });
    expect(atEnd.body).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
    const ended = await advance(made.body.id);
    expect(ended.body.status).toBe('canceled');
    expect((await salesOf(made.body.id)).length).toBe(2);
    expect((await eventsOf(made.body.id)).at(-1)).toBe('subscription.canceled');

    const now = await subscribe({
      customerId,
      planId,
      paymentMethod: 'CREDIT_CARD',
      cardId,
    });
    // no body at all: cancel now
    const canceled = await api<Sub>('POST', `/api/subscriptions/${now.body.id}/cancel`);
    expect(canceled.status, canceled.text).toBe(200);
    expect(canceled.body).toMatchObject({ status: 'canceled', nextChargeAt: null });
    expect((await advance(now.body.id)).status).toBe(409);
  });

  it('are refused with 400 and nothing written for a wrong customer, plan, method or card', async () => {
    const customerId = await customer();
    const cardId = await savedCard(customerId, '1');
    const planId = await plan({ methods: ['PIX'] });
    const otherCustomer = (await api<{ id: string }>('POST', '/api/customers', CUSTOMER, other)).body.id;
    const cases: [Record<string, unknown>, string][] = [
      [{ customerId: otherCustomer, planId, paymentMethod: 'PIX' }, 'customerId'],
      [{ customerId, planId: customerId, paymentMethod: 'PIX' }, 'planId'],
      [{ customerId, planId, paymentMethod: 'CREDIT_CARD', cardId }, 'paymentMethod'],
      [{ customerId, planId, paymentMethod: 'PIX', cardId }, 'cardId'],
      [{ customerId, planId, paymentMethod: 'PIX', startDate: '2020-01-01' }, 'startDate'],
      [{ customerId, planId, paymentMethod: 'PIX', startDate: '2026-02-30' }, 'startDate'],
    ];
    const before = (await api<{ data: unknown[] }>('GET', '/api/subscriptions?limit=100')).body.data.length;
    for (const [body, field] of cases) {
      const res = await api('POST', '/api/subscriptions', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toContain(field);
    }
    expect((await api<{ data: unknown[] }>('GET', '/api/subscriptions?limit=100')).body.data.length).toBe(
      before,
    );
  });
});

describe('subscriptions by PIX', () => {
  it('a plan change shows as the next plan until the period it starts is paid, though its Pix is issued days ahead', async () => {
    const customerId = await customer('pix-plan@example.com');
    const planId = await plan();
    const dearer = await plan({ name: 'Premium Pix', amountCents: 19990 });
    const made = await subscribe({ customerId, planId, paymentMethod: 'PIX' });
    expect(made.status, made.text).toBe(201);
    await advance(made.body.id);
    const [first] = await firstSales(made.body.id);
    await api('POST', `/api/sandbox/sales/${first!.uuid}/status`, { status: 'PAGO' });
    const changed = await api<Sub & { amountCents: number }>('PATCH', `/api/subscriptions/${made.body.id}`, {
      planId: dearer,
    });
    expect(changed.body).toMatchObject({ planId, nextPlanId: dearer, amountCents: 9990 });
    const current = { start: changed.body.currentPeriodStart, end: changed.body.currentPeriodEnd };
    const token = changed.body.billingUrl!.split('/billing/')[1]!;
    const before = await call<{ nextPlan: unknown }>('GET', `${server.url}/api/public/billing/${token}`);
    expect(before.body.nextPlan).toEqual({ name: 'Premium Pix', amountCents: 19990, from: current.end });

    // the next period's Pix, at the new price, issued before that period starts: the current period is still
    // the one paid at the plan before, and the subscription says so
    const issued = await advance(made.body.id);
    expect((await salesOf(made.body.id)).map((s) => s.amount)).toEqual([19990, 9990]);
    expect(issued.body).toMatchObject({
      planId,
      nextPlanId: dearer,
      amountCents: 9990,
      currentPeriodStart: current.start,
      currentPeriodEnd: current.end,
    });
    // the customer's page: the plan of the period they are in, and the next charge due on the first day of the
    // period it is for (the one after the Pix already issued)
    const page = await call<{
      planName: string;
      amountCents: number;
      nextChargeAt: string;
      nextChargeDue: string;
      nextPlan: { name: string; amountCents: number; from: string } | null;
      sales: { status: string; period: { start: string; end: string } | null }[];
    }>('GET', `${server.url}/api/public/billing/${token}`);
    // and the change coming, from the period its Pix is for
    expect(page.body).toMatchObject({
      planName: 'Academia',
      amountCents: 9990,
      nextPlan: { name: 'Premium Pix', amountCents: 19990, from: current.end },
    });
    const issuedPeriod = page.body.sales.find((x) => x.status === 'PENDENTE')!.period!;
    expect(issuedPeriod.start).toBe(current.end);
    const following = issuedPeriod.end;
    expect(page.body.nextChargeDue).toBe(following);
    expect(
      (fromSaoPaulo(`${following}T00:00`).getTime() - Date.parse(page.body.nextChargeAt)) / 86_400_000,
    ).toBe(5);

    // changed again, that period billed already: the change asked last is the one shown, from the period after
    const third = await plan({ name: 'Plus Pix', amountCents: 14990 });
    const again = await api<Sub>('PATCH', `/api/subscriptions/${made.body.id}`, { planId: third });
    expect(again.body).toMatchObject({ planId, nextPlanId: third });
    const told = await call<{ nextPlan: unknown }>('GET', `${server.url}/api/public/billing/${token}`);
    expect(told.body.nextPlan).toEqual({ name: 'Plus Pix', amountCents: 14990, from: following });

    // paid: that period is the current one, at the plan it was billed at; the last change still coming
    const second = (await salesOf(made.body.id)).find((s) => s.status === 'PENDENTE')!;
    await api('POST', `/api/sandbox/sales/${second.uuid}/status`, { status: 'PAGO' });
    // (the period's outcome is the scheduler's to record: it looks at the paid sale on its next round)
    const renewed = await waitUntil(async () => {
      const r = await api<Sub & { amountCents: number }>('GET', `/api/subscriptions/${made.body.id}`);
      return r.body.currentPeriodStart === current.end && r;
    });
    expect(renewed.body).toMatchObject({
      planId: dearer,
      nextPlanId: third,
      amountCents: 19990,
      currentPeriodStart: current.end,
    });
    const after = await call<{ planName: string; nextPlan: unknown }>(
      'GET',
      `${server.url}/api/public/billing/${token}`,
    );
    expect(after.body).toMatchObject({
      planName: 'Premium Pix',
      nextPlan: { name: 'Plus Pix', amountCents: 14990, from: following },
    });
    // ending at its period's end, no change will ever take effect: none is shown
    const ending = await api<Sub>('POST', `/api/subscriptions/${made.body.id}/cancel`, { atPeriodEnd: true });
    expect(ending.body).toMatchObject({ cancelAtPeriodEnd: true, nextPlanId: null });
  });

  it('open a charge with due date ahead, e-mailed to the customer; paid, the period is active', async () => {
    const customerId = await customer('pix-sub@example.com');
    const planId = await plan();
    const asked = Date.now();
    const made = await subscribe({ customerId, planId, paymentMethod: 'PIX' });
    expect(made.status, made.text).toBe(201);
    // its first period starts tomorrow, within the lead of its Pix: charged now, not at a time gone by
    const periodStart = made.body.currentPeriodStart;
    expect(Date.parse(made.body.nextChargeAt!)).toBeGreaterThanOrEqual(asked);
    expect(Date.parse(made.body.nextChargeAt!)).toBeLessThanOrEqual(Date.now());
    await advance(made.body.id);
    const [sale] = await firstSales(made.body.id);
    expect(sale!.status).toBe('PENDENTE');
    // payable through its due date, the period's first day: it expires when the next day starts
    const dayAfter = new Date(Date.parse(`${periodStart}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    expect(sale!.expiresAt).toBe(fromSaoPaulo(`${dayAfter}T00:00`).toISOString());
    expect((await advance(made.body.id)).status).toBe(409);
    const mail = await waitUntil(() => mailbox.messages.find((m) => m.to === 'pix-sub@example.com'));
    expect(mail.text).toContain(`Pix com vencimento em ${periodStart.split('-').reverse().join('/')}`);
    expect(mail.text).toContain('Pix copia e cola');
    expect(mail.text).toContain(made.body.billingUrl);
    const paid = await api('POST', `/api/sandbox/sales/${sale!.uuid}/status`, { status: 'PAGO' });
    expect(paid.status, paid.text).toBeLessThan(300);
    // the next period's Pix is issued BOLETO_DAYS_BEFORE (5) days before its first day, as a boleto is
    const active = await api<Sub>('GET', `/api/subscriptions/${made.body.id}`);
    const ahead =
      (fromSaoPaulo(`${active.body.currentPeriodEnd}T00:00`).getTime() -
        Date.parse(active.body.nextChargeAt!)) /
      86_400_000;
    expect(ahead).toBe(5);
    const next = await advance(made.body.id);
    expect(next.body.status).toBe('active');
    expect((await salesOf(made.body.id)).map((s) => s.status)).toEqual(['PENDENTE', 'PAGO']);
  });
  it('the advance waits for a scheduler applying the same try: it answers with the outcome applied', async () => {
    const customerId = await customer('pix-race@example.com');
    const planId = await plan();
    const made = await subscribe({ customerId, planId, paymentMethod: 'PIX' });
    expect(made.status, made.text).toBe(201);
    await advance(made.body.id);
    const [sale] = await firstSales(made.body.id);
    const paid = await api('POST', `/api/sandbox/sales/${sale!.uuid}/status`, { status: 'PAGO' });
    expect(paid.status, paid.text).toBeLessThan(300);
    // the try locked as a running scheduler locks it while it applies the payment: the advance waits for it
    // (it used to skip it, find the try still open and answer 409)
    const held = await server.runtime.platform.db.tx(async (tx) => {
      const locked = await tx.query(
        `SELECT c.id FROM subscription_charges c JOIN sales s ON s.id = c.sale_id
          WHERE s.uuid = $1 AND c.outcome IS NULL FOR UPDATE OF c`,
        [sale!.uuid],
      );
      expect(locked).toHaveLength(1);
      const pending = advance(made.body.id);
      await new Promise((resolve) => setTimeout(resolve, 500));
      return { pending }; // not awaited here: the lock is let go when this transaction ends
    });
    const answer = await held.pending;
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.status).toBe('active');
    expect((await salesOf(made.body.id)).map((s) => s.status)).toEqual(['PENDENTE', 'PAGO']);
  });
  it('cancelled now, its open charge is cancelled with it: nobody pays it, and no dunning e-mail follows', async () => {
    const customerId = await customer('pix-cancel@example.com');
    const planId = await plan();
    const made = await subscribe({ customerId, planId, paymentMethod: 'PIX' });
    expect(made.status, made.text).toBe(201);
    await advance(made.body.id);
    const [open] = await firstSales(made.body.id);
    expect(open!.status).toBe('PENDENTE');
    const canceled = await api<Sub>('POST', `/api/subscriptions/${made.body.id}/cancel`, {});
    expect(canceled.body.status, canceled.text).toBe('canceled');
    expect((await salesOf(made.body.id)).map((s) => s.status)).toEqual(['CANCELADO']);
    // the running scheduler applies the try's outcome; the subscriber got the charge's e-mail, nothing after
    await waitUntil(async () => {
      const [row] = await server.runtime.platform.db.query<{ outcome: string | null }>(
        `SELECT c.outcome FROM subscription_charges c JOIN sales s ON s.id = c.sale_id WHERE s.uuid = $1`,
        [open!.uuid],
      );
      return row?.outcome === 'failed';
    }, 20_000);
    expect((await api<Sub>('GET', `/api/subscriptions/${made.body.id}`)).body.status).toBe('canceled');
    const mails = () => mailbox.messages.filter((m) => m.to === 'pix-cancel@example.com');
    await waitUntil(() => mails().length > 0); // the charge's own
    // a mail queued with the outcome would be on its way by now
    const [queued] = await server.runtime.platform.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM mail_messages WHERE recipient = 'pix-cancel@example.com'`,
    );
    expect(queued!.n).toBe(1);
    expect(mails()).toHaveLength(1);
  });
});

describe('subscriptions by BOLETO', () => {
  it('issue the boleto ahead, due on the period’s first day, e-mailed with its line and PDF', async () => {
    const customerId = await customer('boleto-sub@example.com');
    const planId = await plan({ methods: ['BOLETO'] });
    const noAddress = await subscribe({ customerId, planId, paymentMethod: 'BOLETO' });
    expect(noAddress.status).toBe(400);
    expect(noAddress.body.message).toContain('address');
    const address = {
      street: 'Rua das Flores',
      number: '100',
      district: 'Centro',
      city: 'São Paulo',
      state: 'SP',
      zipCode: '01310-100',
    };
    // refused as a boleto would refuse it, when the subscription is made rather than at each period's boleto
    for (const [bad, why] of [
      [{ ...address, state: 'XX' }, 'address.state must be a UF'],
      [{ ...address, zipCode: '01310-10' }, 'address.zipCode must be a CEP: 8 digits'],
    ] as const) {
      const refused = await subscribe({ customerId, planId, paymentMethod: 'BOLETO', address: bad });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        error: 'VALIDATION_ERROR',
        message: expect.stringContaining(why),
      });
    }
    const list = await api<{ data: unknown[] }>('GET', `/api/subscriptions?customerId=${customerId}`);
    expect(list.body.data).toEqual([]); // nothing written
    const asked = Date.now();
    const made = await subscribe({ customerId, planId, paymentMethod: 'BOLETO', address });
    expect(made.status, made.text).toBe(201);
    // its first period starts tomorrow, within the BOLETO_DAYS_BEFORE (5) days a boleto is issued ahead: now
    expect(Date.parse(made.body.nextChargeAt!)).toBeGreaterThanOrEqual(asked);
    expect(Date.parse(made.body.nextChargeAt!)).toBeLessThanOrEqual(Date.now());
    await advance(made.body.id);
    const [sale] = await firstSales(made.body.id);
    const lookup = await api<{
      paymentMethod: string;
      status: string;
      boleto: { dueDate: string; digitableLine: string };
    }>('GET', `/api/transactions/${sale!.uuid}`);
    expect(lookup.body).toMatchObject({ paymentMethod: 'BOLETO', status: 'PENDENTE' });
    expect(lookup.body.boleto.dueDate).toBe(made.body.currentPeriodStart);
    const mail = await waitUntil(() => mailbox.messages.find((m) => m.to === 'boleto-sub@example.com'));
    // the line grouped as people type it, as the PDF prints it
    expect(mail.text).toContain(formatLine(lookup.body.boleto.digitableLine));
    expect(mail.text).toMatch(/Linha digitável: \d{5}\.\d{5} \d{5}\.\d{6} \d{5}\.\d{6} \d \d{14}\./);
    expect(mail.text).toMatch(/^Boleto em PDF: http\S+\.pdf\S*$/m);
    // a link in the HTML part, as the page's own button is
    expect(mail.html).toMatch(/<a href="http[^"]+\.pdf[^"]*">Boleto em PDF<\/a>/);
  });
});
