/**
 * A payer pays a card-only payment link on a 390 px wide phone screen in Debian's chromium, against a real
 * server: the card form (brand shown as typed, installments with their amounts), a refused card with its reason
 * in Portuguese, then another card paid in three installments and "Pagamento confirmado". The card goes only to
 * the page's own routes (no merchant key, no other origin); axe-core on every step. Screenshots in
 * test-output/screenshots (checkout-card-*).
 */
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cardEnding } from '../cards/cards.js';
import { createLink, PAYER } from '../checkout/fixtures.js';
import { seriousViolations } from '../support/axe.js';
import { cutChoices, launch, shot } from '../support/browser.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let merchant: TestMerchant;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let requests: Request[];
let cspReports: string[];

beforeAll(async () => {
  server = await startServer();
  merchant = await createMerchant(server, 'Loja da Maria');
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});
beforeEach(async () => {
  context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
    locale: 'pt-BR',
  });
  page = await context.newPage();
  requests = [];
  cspReports = [];
  page.on('request', (r) => requests.push(r));
  page.on('console', (m) => {
    if (/Content.Security.Policy/i.test(m.text())) cspReports.push(m.text());
  });
});
afterEach(async () => {
  await context?.close();
  expect(requests.map((r) => r.url()).filter((u) => !u.startsWith(`${server.url}/`))).toEqual([]);
  expect(cspReports).toEqual([]);
});

async function expectAccessible(): Promise<void> {
  expect(await seriousViolations(page)).toEqual([]);
}

/** The card as a payer types it, digit by digit (the page groups them). */
async function typeCard(number: string, cvv: string): Promise<void> {
  await page.getByLabel('Número do cartão').fill('');
  await page.getByLabel('Número do cartão').pressSequentially(number);
  await page.getByLabel('Código de segurança (CVV)').fill(cvv);
}

describe('a payer pays a card-only payment link on a phone', () => {
  it('a refused card says why in Portuguese; another card pays in 3 installments', async () => {
    const link = await createLink(server, merchant, {
      title: 'Curso de fotografia',
      amountCents: 30000,
      methods: ['CREDIT_CARD'],
      maxInstallments: 6,
    });
    expect((await page.goto(`${server.url}/pay/${link.slug}`))?.status()).toBe(200);
    await page.getByRole('heading', { level: 1, name: 'Curso de fotografia' }).waitFor();
    expect(await page.getByRole('radio').count()).toBe(1);
    expect(await page.getByRole('radio', { name: 'Cartão de crédito' }).isChecked()).toBe(true);
    const select = page.getByLabel('Parcelas');
    await expect.poll(() => select.locator('option').count()).toBe(6);
    // Intl writes R$ with a no-break space
    const labels = await select.locator('option').allTextContents();
    expect(labels.map((l) => l.replace(/\s/g, ' '))).toEqual([
      'À vista, R$ 300,00',
      '2x de R$ 150,00 sem juros',
      '3x de R$ 100,00 sem juros',
      '4x de R$ 75,00 sem juros',
      '5x de R$ 60,00 sem juros',
      '6x de R$ 50,00 sem juros',
    ]);
    await expectAccessible();
    await shot(page, 'checkout-card-01-form');

    await page.getByLabel('Nome completo').fill(PAYER.name);
    await page.getByLabel('E-mail').fill(PAYER.email);
    await page.getByLabel('CPF ou CNPJ').pressSequentially('52998224725');
    // checked as typed: the brand as soon as it is known, a number failing its check digit refused before any request
    await page.getByLabel('Número do cartão').pressSequentially('4111 1111 1111 1112');
    await page.getByText('Bandeira: Visa').waitFor();
    await page.getByLabel('Nome impresso no cartão').fill('Maria Silva');
    expect(await page.getByLabel('Nome impresso no cartão').inputValue()).toBe('MARIA SILVA');
    await page
      .getByLabel('Validade (MM/AA)')
      .pressSequentially(`12${String(new Date().getFullYear() + 2).slice(2)}`);
    await page.getByLabel('Código de segurança (CVV)').fill('123');
    await page.getByRole('button', { name: 'Pagar com cartão' }).click();
    await page.getByText('Número do cartão inválido: confira os dígitos.').waitFor();
    expect(requests.some((r) => r.url().includes('/card'))).toBe(false);
    await expectAccessible();
    await shot(page, 'checkout-card-02-checked');

    // refused by the bank (the sandbox's card ending in 2: code 05)
    const refused = cardEnding('2');
    await typeCard(refused, '123');
    expect(await page.getByLabel('Número do cartão').inputValue()).toBe(
      refused.replace(/(\d{4})(?=\d)/g, '$1 '),
    );
    await select.selectOption('3');
    // the chosen installments read whole on the phone's width
    expect(await cutChoices(page)).toEqual([]);
    await page.getByRole('button', { name: 'Pagar com cartão' }).click();
    await page
      .getByRole('alert')
      .filter({
        hasText: 'O banco do cartão não autorizou o pagamento. Fale com seu banco ou use outro cartão.',
      })
      .waitFor();
    // the refusal has the focus (the button pressed was disabled meanwhile): a keyboard goes on from it
    expect(await page.evaluate<string | null>("document.activeElement?.getAttribute('role') ?? null")).toBe(
      'alert',
    );
    // another try: the form stays, with the payer's data; the CVV is asked again
    expect(await page.getByLabel('Nome completo').inputValue()).toBe(PAYER.name);
    expect(await page.getByLabel('Código de segurança (CVV)').inputValue()).toBe('');
    expect(await select.inputValue()).toBe('3');
    await expectAccessible();
    await shot(page, 'checkout-card-03-refused');

    const approved = cardEnding('1');
    await typeCard(approved, '321');
    const answered = page.waitForResponse((r) => r.url().endsWith(`/api/public/pay/${link.slug}/card`));
    await page.getByRole('button', { name: 'Pagar com cartão' }).click();
    const payment = (await (await answered).json()) as { saleId: string; status: string };
    expect(payment.status).toBe('PAGO');
    await page.getByRole('heading', { level: 1, name: 'Pagamento confirmado' }).waitFor();
    await page.getByText('Recebemos seu pagamento de R$ 300,00. Obrigado!').waitFor();
    await page.getByText(`No cartão Visa final ${approved.slice(-4)}, em 3 parcelas.`).waitFor();
    await expectAccessible();
    await shot(page, 'checkout-card-04-paid');

    const sale = await call<Record<string, unknown>>(
      'GET',
      `${server.url}/api/transactions/${payment.saleId}`,
      {
        headers: merchant.keys,
      },
    );
    expect(sale.body).toMatchObject({
      status: 'PAGO',
      paymentMethod: 'CREDIT_CARD',
      installments: 3,
      cardLastFour: approved.slice(-4),
      paymentLinkId: link.id,
    });
    // the card went to the page's own routes only, and no request carried a merchant's key
    const posted = requests.filter((r) => r.method() === 'POST').map((r) => new URL(r.url()).pathname);
    expect(posted).toEqual([
      `/api/public/pay/${link.slug}/card-token`,
      `/api/public/pay/${link.slug}/card`,
      `/api/public/pay/${link.slug}/card-token`,
      `/api/public/pay/${link.slug}/card`,
    ]);
    for (const r of requests) {
      expect(Object.keys(r.headers()).filter((h) => h.startsWith('x-api-'))).toEqual([]);
    }
    const cardBody = requests.filter((r) => r.url().endsWith('/card'));
    expect(cardBody.every((r) => !(r.postData() ?? '').includes(approved))).toBe(true);
  });

  it('twelve installments of an amount that does not divide read whole on the phone, the first one said beside', async () => {
    const link = await createLink(server, merchant, {
      title: 'Câmera',
      amountCents: 1_234_567,
      methods: ['CREDIT_CARD'],
      maxInstallments: 12,
    });
    expect((await page.goto(`${server.url}/pay/${link.slug}`))?.status()).toBe(200);
    const select = page.getByLabel('Parcelas');
    await expect.poll(() => select.locator('option').count()).toBe(12);
    await select.selectOption('12');
    expect(await cutChoices(page)).toEqual([]);
    // 1,234,567 / 12 = 102,880 and 7 left, on the first
    const note = page.locator('#f-installments-note');
    expect((await note.textContent())?.replace(/\s/g, ' ')).toBe(
      'Sem juros: o total é sempre R$ 12.345,67. A 1ª parcela é de R$ 1.028,87.',
    );
    await expectAccessible();
  });
});
