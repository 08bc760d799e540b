/**
 * The panel's Assinaturas and Clientes in Debian's chromium: a merchant's card subscription (made by the API)
 * is listed with its customer, plan and state, and cancelled at the period's end from its row; the customer is
 * listed with the card on file (brand and last four only); a PIX subscription debited through the customer's
 * mandate shows as PIX Automático. Every page axe-clean, screenshots kept.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardBody, cardEnding } from '../cards/cards.js';
import { CUSTOMER } from '../sales/fixtures.js';
import { seriousViolations } from '../support/axe.js';
import { launch, shot } from '../support/browser.js';
import { createMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startServer({ workers: false });
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function clean(page: Page, name: string): Promise<void> {
  await shot(page, name);
  expect(await seriousViolations(page), name).toEqual([]);
}

describe('Assinaturas and Clientes', () => {
  it('list a subscription and its customer; the subscription is cancelled at its period’s end from the page', async () => {
    const m = await createMerchant(server);
    const api = <T>(method: string, path: string, body?: unknown) =>
      call<T>(method, `${server.url}${path}`, { headers: m.keys, ...(body === undefined ? {} : { body }) });
    const customer = await api<{ id: string }>('POST', '/api/customers', CUSTOMER);
    const number = cardEnding('1');
    const token = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
      headers: { 'x-api-public-key': m.publicKey },
      body: cardBody(number),
    });
    const card = await api<{ id: string }>('POST', `/api/customers/${customer.body.id}/cards`, {
      token: token.body.token,
    });
    const plan = await api<{ id: string }>('POST', '/api/plans', {
      name: 'Plano Anual',
      amountCents: 99_900,
      interval: 'year',
      trialDays: 7,
      methods: ['CREDIT_CARD', 'PIX'],
    });
    const sub = await api<{ id: string }>('POST', '/api/subscriptions', {
      customerId: customer.body.id,
      planId: plan.body.id,
      paymentMethod: 'CREDIT_CARD',
      cardId: card.body.id,
    });
    expect(sub.status).toBe(201);
    // a PIX subscriber who authorised a Pix Automático mandate is debited through it
    const payer = { ...CUSTOMER, name: 'João Souza', document: '11144477735', email: 'joao@example.com' };
    await api('POST', '/api/sandbox/recurrences', {
      contrato: 'CTR-ANUAL',
      journey: 2,
      amount: 99_900,
      dataInicial: '2026-12-01',
      customer: payer,
    });
    const pixCustomer = await api<{ id: string }>('POST', '/api/customers', payer);
    const pixSub = await api<{ idRec: string | null }>('POST', '/api/subscriptions', {
      customerId: pixCustomer.body.id,
      planId: plan.body.id,
      paymentMethod: 'PIX',
    });
    expect(pixSub.body.idRec).not.toBeNull();
    // a plan change waits for the next period: the list says so beside the plan of today
    const plus = await api<{ id: string }>('POST', '/api/plans', {
      name: 'Plano Anual Plus',
      amountCents: 129_900,
      interval: 'year',
      methods: ['CREDIT_CARD'],
    });
    const changed = await api('PATCH', `/api/subscriptions/${sub.body.id}`, { planId: plus.body.id });
    expect(changed.status, changed.text).toBe(200);

    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${server.url}/`);
    await page.getByLabel('E-mail').fill(m.email);
    await page.getByLabel('Senha').fill(m.password);
    await page.getByRole('button', { name: 'Entrar' }).click();
    const menu = page.getByRole('navigation', { name: 'Principal' });
    await menu.getByRole('link', { name: 'Assinaturas' }).click();
    await page.getByRole('heading', { level: 1, name: 'Assinaturas' }).waitFor();
    const row = page
      .getByRole('table', { name: 'Assinaturas' })
      .getByRole('row', { name: new RegExp(CUSTOMER.name) });
    await row.waitFor();
    expect(await row.textContent()).toMatch(
      /Plano Anual \(R\$\s999,00 por ano\) · muda para Plano Anual Plus no próximo período.*Em teste/,
    );
    const pixRow = page.getByRole('table', { name: 'Assinaturas' }).getByRole('row', { name: /João Souza/ });
    expect(await pixRow.textContent()).toContain('PIX Automático');
    await page
      .getByRole('table', { name: 'Planos' })
      .getByRole('row', { name: /Plano Anual.*7 dias/ })
      .waitFor();
    await clean(page, 'panel-subscriptions-01-list');

    // asked first, as the panel's other cancels are: dismissed, nothing changes
    page.once('dialog', (d) => void d.dismiss());
    await row.getByRole('button', { name: /Cancelar no fim do período/ }).click();
    const kept = await api<{ cancelAtPeriodEnd: boolean }>('GET', `/api/subscriptions/${sub.body.id}`);
    expect(kept.body.cancelAtPeriodEnd).toBe(false);
    page.once('dialog', (d) => {
      expect(d.message()).toBe('Cancelar esta assinatura no fim do período? Não haverá novas cobranças.');
      void d.accept();
    });
    await row.getByRole('button', { name: /Cancelar no fim do período/ }).click();
    await row.getByText('(termina no fim do período)').waitFor();
    const after = await api<{ cancelAtPeriodEnd: boolean; status: string; currentPeriodEnd: string }>(
      'GET',
      `/api/subscriptions/${sub.body.id}`,
    );
    expect(after.body).toMatchObject({ cancelAtPeriodEnd: true, status: 'trialing' });
    // no next charge is promised for it: the row says when it ends
    await row
      .getByText(`Nenhuma: termina em ${after.body.currentPeriodEnd.split('-').reverse().join('/')}`)
      .waitFor();
    await clean(page, 'panel-subscriptions-02-cancel-at-end');
    // cancelling now is asked first: dismissed, nothing changes
    page.once('dialog', (d) => void d.dismiss());
    await row.getByRole('button', { name: /Cancelar agora/ }).click();
    expect((await api<{ status: string }>('GET', `/api/subscriptions/${sub.body.id}`)).body.status).toBe(
      'trialing',
    );

    await menu.getByRole('link', { name: 'Clientes' }).click();
    await page.getByRole('heading', { level: 1, name: 'Clientes' }).waitFor();
    const customerRow = page
      .getByRole('table', { name: 'Clientes' })
      .getByRole('row', { name: new RegExp(CUSTOMER.email) });
    await customerRow.waitFor();
    expect(await customerRow.textContent()).toContain(`final ${number.slice(-4)}`);
    expect(await page.content()).not.toContain(number);
    expect(await customerRow.textContent()).not.toContain(CUSTOMER.document); // masked but for its last digits
    await clean(page, 'panel-customers-01-list');
  });
});
