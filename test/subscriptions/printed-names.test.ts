/**
 * Red team: the gateway's own e-mails as a phishing relay. A plan, customer or recipient named with a link is
 * refused (400 shape D); names stored before the rule reach no inbox as a link (the subscription charge e-mail
 * prints them through the names helper, or leaves them out).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUSTOMER } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { Mailbox } from '../support/mailbox.js';
import { startServer, type TestServer } from '../support/server.js';

const PHISH = 'Atualize em http://evil.example/login';

let server: TestServer;
let merchant: TestMerchant;
let mailbox: Mailbox;

beforeAll(async () => {
  mailbox = await Mailbox.start();
  server = await startServer({ env: { SMTP_URL: mailbox.url } });
  merchant = await createMerchant(server, 'Academia Boa Forma');
});
afterAll(async () => {
  await server?.close();
  await mailbox?.stop();
});

const api = <T>(method: string, path: string, body?: unknown) =>
  call<T & { error?: string; message?: string }>(method, `${server.url}${path}`, {
    headers: merchant.keys,
    ...(body === undefined ? {} : { body }),
  });
const tomorrowSp = () =>
  new Date(Date.now() + 86_400_000).toLocaleDateString('sv-SE', { timeZone: 'America/Sao_Paulo' });

describe('names with links, on the subscription doors', () => {
  it('a plan, a plan renamed, and a customer named "Atualize em http://evil.example/login" are refused', async () => {
    const plan = await api('POST', '/api/plans', {
      name: PHISH,
      amountCents: 9990,
      interval: 'month',
      methods: ['PIX'],
    });
    expect(plan.status).toBe(400);
    expect(plan.body).toMatchObject({ error: 'VALIDATION_ERROR' });
    expect(plan.body.message).toMatch(/^name /);
    for (const name of [
      'Plano www.evil.example',
      'Plano evil.com.br',
      'Plano 10.0.0.1',
      'Plano\nOuro',
      'ｈｔｔｐ：／／evil',
    ]) {
      const res = await api('POST', '/api/plans', {
        name,
        amountCents: 9990,
        interval: 'month',
        methods: ['PIX'],
      });
      expect(res.status, name).toBe(400);
    }
    const ok = await api<{ id: string }>('POST', '/api/plans', {
      name: 'Plano Ouro 2.0',
      amountCents: 9990,
      interval: 'month',
      methods: ['PIX'],
    });
    expect(ok.status, ok.text).toBe(201);
    const renamed = await api('PATCH', `/api/plans/${ok.body.id}`, { name: PHISH });
    expect(renamed.status).toBe(400);
    expect(renamed.body.message).toMatch(/^name /);

    const customer = await api('POST', '/api/customers', { ...CUSTOMER, name: PHISH });
    expect(customer.status).toBe(400);
    expect(customer.body).toMatchObject({ error: 'VALIDATION_ERROR' });
    expect(customer.body.message).toMatch(/^name /);
  });

  it('names stored before the rule: the charge e-mail carries neither URL', async () => {
    const email = 'antigo-assinante@example.com';
    const customer = await api<{ id: string }>('POST', '/api/customers', { ...CUSTOMER, email });
    expect(customer.status, customer.text).toBe(201);
    const plan = await api<{ id: string }>('POST', '/api/plans', {
      name: 'Mensal',
      amountCents: 9990,
      interval: 'month',
      methods: ['PIX'],
    });
    expect(plan.status, plan.text).toBe(201);
    // as rows written before names were checked
    const db = server.runtime.platform.db;
    await db.query('UPDATE customers SET name = $1 WHERE uuid = $2', [PHISH, customer.body.id]);
    await db.query('UPDATE plans SET name = $1 WHERE uuid = $2', [
      'Renove em www.evil.example/pagar',
      plan.body.id,
    ]);

    const sub = await api<{ id: string }>('POST', '/api/subscriptions', {
      customerId: customer.body.id,
      planId: plan.body.id,
      paymentMethod: 'PIX',
      startDate: tomorrowSp(),
    });
    expect(sub.status, sub.text).toBe(201);
    const advanced = await api('POST', `/api/sandbox/subscriptions/${sub.body.id}/advance`);
    expect(advanced.status, advanced.text).toBe(200);
    const mail = await mailbox.waitFor(email, /cobrança/);
    for (const part of [mail.subject, mail.text, mail.html]) {
      expect(part).not.toContain('evil.example');
      expect(part).not.toContain('Atualize');
    }
    expect(mail.subject).toMatch(/^(\[Teste\] )?Sua assinatura: cobrança de R\$/);
    expect(mail.text).toContain('Olá.');
    expect(mail.text).toContain('A sua assinatura tem uma cobrança');
  });
});
