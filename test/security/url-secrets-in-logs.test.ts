/**
 * Bearer secrets that travel in URLs never reach the logs (docs/security.md, "Secrets in URLs"): a journey
 * through every page and route that carries one, on a real gateway logging everything (trace), and then a grep
 * of all it wrote for each secret. The billing page's token, a checkout session's id, a boleto's PDF token,
 * panel and console invitation tokens and a password-reset token; URLs mistyped or odd (another case, an
 * encoded letter, a fragment, a query parameter named `token`) and the gateway's own 404 lines included.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spDay } from '../boletos/fixtures.js';
import { createSession, PAYER } from '../checkout/fixtures.js';
import { CUSTOMER } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { linkToken, Mailbox } from '../support/mailbox.js';
import { inviteOperator } from '../support/operators.js';
import { rawRequest } from '../support/raw-http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let merchant: TestMerchant;
let mailbox: Mailbox;
/** Everything the gateway logged, line by line, from its start. */
let logged = '';

beforeAll(async () => {
  mailbox = await Mailbox.start();
  server = await startServer({ env: { SMTP_URL: mailbox.url, LOG_LEVEL: 'trace' } });
  // the gateway's log destination is its LogWatch: every line it writes is kept here too
  const watch = server.logs;
  const write = watch.write.bind(watch);
  watch.write = (chunk: string | Buffer) => {
    logged += chunk.toString();
    write(chunk);
  };
  merchant = await createMerchant(server);
});
afterAll(async () => {
  await server?.close();
  await mailbox?.stop();
});

const api = <T>(method: string, path: string, body?: unknown) =>
  call<T>(method, `${server.url}${path}`, {
    headers: merchant.keys,
    ...(body === undefined ? {} : { body }),
  });
const get = (path: string) => call('GET', `${server.url}${path}`);

describe('secrets in URLs', () => {
  it('a journey through every URL that carries one leaves none of them in the log', async () => {
    const secrets: Record<string, string> = {};

    // the subscriber's billing page: its token is its whole authority
    const customer = await api<{ id: string }>('POST', '/api/customers', CUSTOMER);
    expect(customer.status, customer.text).toBe(201);
    const plan = await api<{ id: string }>('POST', '/api/plans', {
      name: 'Academia',
      amountCents: 9990,
      interval: 'month',
      methods: ['PIX'],
    });
    expect(plan.status, plan.text).toBe(201);
    const sub = await api<{ billingUrl: string }>('POST', '/api/subscriptions', {
      customerId: customer.body.id,
      planId: plan.body.id,
      paymentMethod: 'PIX',
      startDate: spDay(1),
    });
    expect(sub.status, sub.text).toBe(201);
    const billing = sub.body.billingUrl.split('/billing/')[1]!;
    secrets.billing = billing;
    const page = await get(`/billing/${billing}`);
    expect(page.status).toBe(200);
    // nor does the page send its address away as a referrer
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect((await get(`/api/public/billing/${billing}`)).status).toBe(200);
    expect((await get(`/BILLING/${billing}`)).status).toBe(404);
    expect((await get(`/api/public/billing/${billing}/nothing-here`)).status).toBe(404);
    expect((await get(`/%62illing/${billing}`)).status).not.toBe(500);
    expect(
      (await call('POST', `${server.url}/api/public/billing/${billing}/cancel`, { body: {} })).status,
    ).toBe(200);

    // a checkout session: its id is its payer page's address
    const session = await createSession(server, merchant);
    secrets.session = session.id;
    const sessionPage = await get(`/checkout/${session.id}`);
    expect(sessionPage.status).toBe(200);
    expect(sessionPage.headers['referrer-policy']).toBe('no-referrer');
    expect((await get(`/api/public/checkout/${session.id}`)).status).toBe(200);
    expect((await api('GET', `/api/checkout/sessions/${session.id}`)).status).toBe(200);
    const paid = await call<{ saleId: string }>('POST', `${server.url}/api/public/checkout/${session.id}`, {
      body: PAYER,
    });
    expect(paid.status, paid.text).toBe(201);

    // a boleto's PDF: the payer's link
    const boleto = await api<{ boleto: { pdfUrl: string } }>('POST', '/api/transactions', {
      amount: 10000,
      paymentMethod: 'BOLETO',
      customer: {
        ...CUSTOMER,
        address: {
          street: 'Rua das Flores',
          number: '100',
          district: 'Centro',
          city: 'São Paulo',
          state: 'SP',
          zipCode: '01001-000',
        },
      },
      items: [{ title: 'Curso online', unitPrice: 10000, quantity: 1, tangible: false }],
      boleto: { dueDate: spDay(3) },
    });
    expect(boleto.status, boleto.text).toBe(201);
    const pdfPath = new URL(boleto.body.boleto.pdfUrl).pathname;
    secrets.boleto = pdfPath
      .split('/')
      .pop()!
      .replace(/\.pdf$/, '');
    expect((await get(pdfPath)).status).toBe(200);

    // a panel invitation, accepted; a password reset, confirmed
    const invitee = `convidado-${randomBytes(4).toString('hex')}@example.com`;
    const invited = await call('POST', `${server.url}/api/users/invitations`, {
      headers: merchant.panel,
      body: { email: invitee, name: 'Convidado', role: 'viewer' },
    });
    expect(invited.status, invited.text).toBe(201);
    const invitation = linkToken(await mailbox.waitFor(invitee, /Convite/), 'convite');
    secrets.invitation = invitation;
    const password = `pw-${randomBytes(8).toString('hex')}`;
    const accepted = await call('POST', `${server.url}/api/auth/accept-invitation`, {
      body: { token: invitation, password },
    });
    expect(accepted.status, accepted.text).toBe(200);
    expect(
      (await call('POST', `${server.url}/api/auth/password-reset`, { body: { email: invitee } })).status,
    ).toBe(202);
    const reset = linkToken(await mailbox.waitFor(invitee, /senha/i), 'nova-senha');
    secrets.reset = reset;
    const confirmed = await call('POST', `${server.url}/api/auth/password-reset/confirm`, {
      body: { token: reset, password: `${password}-2` },
    });
    expect(confirmed.status, confirmed.text).toBe(204);

    // an operator's invitation, accepted
    const operator = await inviteOperator(server, 'support');
    secrets.operatorInvitation = operator.token;
    const opAccepted = await call('POST', `${server.url}/api/ops/auth/accept-invitation`, {
      body: { token: operator.token, password: `op-${randomBytes(8).toString('hex')}` },
    });
    expect(opAccepted.status, opAccepted.text).toBe(200);

    // links pasted whole, fragments and all, by a client that sends them; a token as a query parameter
    await rawRequest(
      server.url,
      `GET /ops#/convite/${operator.token} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
    );
    await rawRequest(
      server.url,
      `GET /#/nova-senha/${reset} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
    );
    await get(`/api/auth/password-reset/confirm?token=${reset}`);

    // no line holds any of the secrets used
    const lines = logged.split('\n').filter((l) => l.startsWith('{'));
    const leaked: string[] = [];
    for (const [name, secret] of Object.entries(secrets)) {
      expect(secret.length, name).toBeGreaterThanOrEqual(16);
      const found = lines.filter((l) => l.includes(secret)).length;
      leaked.push(...(found > 0 ? [`${name} (${found} lines)`] : []));
    }
    expect(leaked, 'secrets that reached the log').toEqual([]);
    // and the log saw each of those requests, under its route (a page asked with a fragment, at its arrival)
    const urls = lines
      .map((l) => JSON.parse(l) as { msg?: string; url?: string })
      .filter((l) => l.msg === 'request completed' || l.msg === 'incoming request')
      .map((l) => l.url);
    expect(urls).toContain('/billing/[redacted]');
    expect(urls).toContain('/api/public/billing/[redacted]/cancel');
    expect(urls).toContain('/checkout/[redacted]');
    expect(urls).toContain('/api/checkout/sessions/[redacted]');
    expect(urls).toContain('/api/boletos/[redacted]');
    expect(urls).toContain('/api/auth/password-reset/confirm?token=[redacted]');
    expect(urls).toContain('/ops#[redacted]');
  });
});
