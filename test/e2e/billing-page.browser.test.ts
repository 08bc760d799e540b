/**
 * The subscriber's own page, /billing/<token>, in Debian's chromium: a card subscription refused past due shows
 * what happened; the subscriber types a new card (tokenized for the merchant, saved on file), the charge behind is
 * made at once, while they wait, and paid; then the subscriber cancels at the period's end. An unknown token is a pt-BR 404.
 * Every state axe-clean, screenshots kept.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardBody, cardEnding } from '../cards/cards.js';
import { CUSTOMER } from '../sales/fixtures.js';
import { seriousViolations } from '../support/axe.js';
import { launch, shot } from '../support/browser.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';

let server: TestServer;
let browser: Browser;
let merchant: TestMerchant;

beforeAll(async () => {
  server = await startServer();
  merchant = await createMerchant(server, 'Academia Boa Forma');
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const api = <T>(method: string, path: string, body?: unknown) =>
  call<T>(method, `${server.url}${path}`, {
    headers: merchant.keys,
    ...(body === undefined ? {} : { body }),
  });

async function clean(page: Page, name: string): Promise<void> {
  await shot(page, name);
  expect(await seriousViolations(page), name).toEqual([]);
}

describe('the subscriber’s page', () => {
  it('shows a refused charge, takes a new card that pays it at once, and cancels at the period’s end', async () => {
    const customer = await api<{ id: string }>('POST', '/api/customers', CUSTOMER);
    const token = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
      headers: { 'x-api-public-key': merchant.publicKey },
      body: cardBody(cardEnding('2')),
    });
    const card = await api<{ id: string }>('POST', `/api/customers/${customer.body.id}/cards`, {
      token: token.body.token,
    });
    const plan = await api<{ id: string }>('POST', '/api/plans', {
      name: 'Plano Mensal',
      amountCents: 8990,
      interval: 'month',
      methods: ['CREDIT_CARD'],
    });
    const tomorrow = new Date(Date.now() + 86_400_000).toLocaleDateString('sv-SE', {
      timeZone: 'America/Sao_Paulo',
    });
    const sub = await api<{ id: string; billingUrl: string }>('POST', '/api/subscriptions', {
      customerId: customer.body.id,
      planId: plan.body.id,
      paymentMethod: 'CREDIT_CARD',
      cardId: card.body.id,
      startDate: tomorrow,
    });
    expect(sub.status).toBe(201);
    const refused = await api<{ status: string }>(
      'POST',
      `/api/sandbox/subscriptions/${sub.body.id}/advance`,
    );
    // its first period refused: it waits for it, incomplete
    expect(refused.body.status).toBe('incomplete');

    const page = await (await browser.newContext({ viewport: { width: 420, height: 900 } })).newPage();
    const opened = await page.goto(`${server.url}${new URL(sub.body.billingUrl).pathname}`);
    expect(opened?.status()).toBe(200);
    await page.getByRole('heading', { name: 'Plano Mensal' }).waitFor();
    await page.getByRole('heading', { name: 'Situação: Aguardando o primeiro pagamento' }).waitFor();
    await page.getByText('Não conseguimos cobrar no cartão').waitFor();
    expect(await page.getByRole('listitem').first().textContent()).toContain('Recusado');
    // nothing paid yet: cancelling does not promise a period that goes on
    await page.getByText(/^Nenhuma nova cobrança é feita, e a assinatura termina em /).waitFor();
    await clean(page, 'billing-01-past-due');

    await page.getByRole('button', { name: 'Trocar o cartão' }).click();
    await page.getByRole('button', { name: 'Salvar cartão' }).click();
    await page.getByText('Informe o número do cartão.').waitFor();
    await clean(page, 'billing-02-card-form-problems');
    const expiry = `12${String(new Date().getUTCFullYear() + 2).slice(-2)}`;
    // another card that refuses too: told so, and the form is ready for a third, empty
    await page.getByLabel('Número do cartão').fill(cardEnding('2'));
    await page.getByLabel('Nome impresso no cartão').fill('MARIA SILVA');
    await page.getByLabel('Validade (MM/AA)').fill(expiry);
    await page.getByLabel('Código de segurança (CVV)').fill('123');
    await page.getByRole('button', { name: /Salvar cartão e pagar R\$\s89,90/ }).click();
    await page.getByText('O cartão recusou o pagamento. Confira os dados ou use outro cartão.').waitFor();
    const again = page.getByRole('button', { name: /Salvar cartão e pagar R\$\s89,90/ });
    await expect.poll(async () => again.isEnabled()).toBe(true);
    expect(await page.getByLabel('Número do cartão').inputValue()).toBe('');
    await page.getByLabel('Número do cartão').fill(cardEnding('1'));
    await page.getByLabel('Nome impresso no cartão').fill('MARIA SILVA');
    await page.getByLabel('Validade (MM/AA)').fill(`12${String(new Date().getUTCFullYear() + 2).slice(-2)}`);
    await page.getByLabel('Código de segurança (CVV)').fill('123');
    await page.getByRole('button', { name: /Salvar cartão e pagar R\$\s89,90/ }).click();
    // the charge behind is made with the new card while the subscriber waits
    await page.getByText('Pagamento confirmado. Sua assinatura está ativa.').waitFor();

    // paid: the page read again says active
    const active = await waitUntil(async () => {
      const s = await api<{ status: string }>('GET', `/api/subscriptions/${sub.body.id}`);
      return s.body.status === 'active' && s.body;
    }, 30_000);
    expect(active.status).toBe('active');
    await page.reload();
    await page.getByRole('heading', { name: 'Situação: Ativa' }).waitFor();
    expect(await page.getByRole('listitem').first().textContent()).toContain('Pago');
    // each charge says the period it is for
    const period = `${tomorrow.split('-').reverse().join('/')} a `;
    for (const item of await page.getByRole('listitem').allTextContents()) expect(item).toContain(period);
    await clean(page, 'billing-03-active');

    await page.getByText(/^A assinatura continua até .* e não é cobrada de novo\.$/).waitFor();
    await page.getByRole('button', { name: 'Cancelar no fim do período' }).click();
    // a double click sends one cancellation
    const cancels: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && /\/cancel$/.test(r.url())) cancels.push(r.url());
    });
    await page.getByRole('button', { name: 'Confirmar o cancelamento' }).dblclick();
    await page.getByText(/Cancelamento agendado para/).waitFor();
    expect(cancels).toHaveLength(1);
    await clean(page, 'billing-04-cancel-scheduled');
    const after = await api<{ cancelAtPeriodEnd: boolean; status: string }>(
      'GET',
      `/api/subscriptions/${sub.body.id}`,
    );
    expect(after.body).toMatchObject({ cancelAtPeriodEnd: true, status: 'active' });

    const missing = await page.goto(`${server.url}/billing/${'x'.repeat(32)}`);
    expect(missing?.status()).toBe(404);
    await page.getByRole('heading', { name: 'Assinatura não encontrada' }).waitFor();
    await clean(page, 'billing-05-not-found');
  });

  it('an expired first period is final: no card to change, nothing to cancel, and says how to subscribe again', async () => {
    const customer = await api<{ id: string }>('POST', '/api/customers', {
      ...CUSTOMER,
      email: 'expirou@example.com',
    });
    // a plan's name as a shop may write it, one long word: the page's heading wraps inside it on a phone
    const planName = 'PlanoTrimestralPremiumComAcessoIlimitadoATodosOsCursosDaPlataforma';
    const plan = await api<{ id: string }>('POST', '/api/plans', {
      name: planName,
      amountCents: 9990,
      interval: 'month',
      intervalCount: 3,
      methods: ['CREDIT_CARD'],
    });
    // made without a card, and not given one within its 23 hours (the deadline moved to now)
    const sub = await api<{ id: string; billingUrl: string }>('POST', '/api/subscriptions', {
      customerId: customer.body.id,
      planId: plan.body.id,
      paymentMethod: 'CREDIT_CARD',
    });
    expect(sub.status, sub.text).toBe(201);
    await server.runtime.platform.db.query(
      'UPDATE subscriptions SET incomplete_expires_at = now() WHERE uuid = $1',
      [sub.body.id],
    );
    await waitUntil(async () => {
      const s = await api<{ status: string }>('GET', `/api/subscriptions/${sub.body.id}`);
      return s.body.status === 'incomplete_expired';
    }, 30_000);
    const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await page.goto(`${server.url}${new URL(sub.body.billingUrl).pathname}`);
    await page
      .getByRole('heading', { name: 'Situação: Encerrada: o primeiro pagamento não foi feito' })
      .waitFor();
    await page.getByRole('heading', { name: planName }).waitFor();
    expect(
      await page.evaluate<number>(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      ),
    ).toBeLessThanOrEqual(0);
    await page.getByText(/esta assinatura não começou e não terá novas cobranças/).waitFor();
    expect(await page.getByRole('button', { name: 'Trocar o cartão' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Cancelar no fim do período' }).count()).toBe(0);
    expect(await page.getByText('Período atual').count()).toBe(0);
    await clean(page, 'billing-06-incomplete-expired');
  });
});
