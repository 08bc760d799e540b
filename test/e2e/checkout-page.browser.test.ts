/**
 * The hosted checkout page in Debian's chromium on a 390 px wide phone screen, against a real server: a buyer
 * pays a link by Pix (the sandbox marks the sale paid) and sees "Pagamento confirmado" without reloading; a paid
 * session; the expired, used-up and unknown pages with their 404/410. axe-core on every page; no request leaves
 * the gateway's origin and the CSP refuses nothing. Screenshots in test-output/screenshots (checkout-*).
 */
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLink, createSession, PAYER, type PixPaymentBody } from '../checkout/fixtures.js';
import { moveTo } from '../sales/fixtures.js';
import { seriousViolations } from '../support/axe.js';
import { launch, shot } from '../support/browser.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let merchant: TestMerchant;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Every request the page made, and what the console said about the CSP. */
let requests: string[];
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
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  page = await context.newPage();
  requests = [];
  cspReports = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (/Content.Security.Policy/i.test(m.text())) cspReports.push(m.text());
  });
});
afterEach(async () => {
  await context?.close();
  // every request stayed on the gateway's origin (the QR code is a data: URI), and the CSP refused nothing
  expect(requests.filter((u) => !u.startsWith(`${server.url}/`) && !u.startsWith('data:'))).toEqual([]);
  expect(cspReports).toEqual([]);
});

async function expectAccessible(): Promise<void> {
  expect(await seriousViolations(page)).toEqual([]);
}

describe('a buyer pays a payment link by Pix on a phone', () => {
  it('checks the data as typed, shows the QR code and copy button, and turns to "Pagamento confirmado" by itself', async () => {
    const link = await createLink(server, merchant, {
      title: 'Curso de fotografia',
      description: 'Acesso por 12 meses',
      amountCents: 19900,
      methods: ['PIX', 'CREDIT_CARD'],
    });
    const res = await page.goto(`${server.url}/pay/${link.slug}`);
    expect(res?.status()).toBe(200);
    await page.getByRole('heading', { level: 1, name: 'Curso de fotografia' }).waitFor();
    expect(await page.getByText('R$ 199,00').isVisible()).toBe(true);
    // what the link lists and the gateway takes, Pix first (checkout-card.browser.test.ts pays by card)
    expect(await page.getByRole('radio').count()).toBe(2);
    expect(await page.getByRole('radio', { name: 'Pix' }).isChecked()).toBe(true);
    expect(await page.getByRole('radio', { name: 'Cartão de crédito' }).isChecked()).toBe(false);
    await expectAccessible();
    await shot(page, 'checkout-01-link-form');

    // checked as typed: a CPF with a wrong check digit, an e-mail without a domain
    await page.getByLabel('Nome completo').fill(PAYER.name);
    await page.getByLabel('E-mail').fill('maria@');
    await page.getByLabel('CPF ou CNPJ').pressSequentially('52998224724');
    expect(await page.getByLabel('CPF ou CNPJ').inputValue()).toBe('529.982.247-24');
    await page.getByText('CPF inválido: confira os números.').waitFor();
    expect(await page.getByLabel('CPF ou CNPJ').getAttribute('aria-invalid')).toBe('true');
    await page.getByRole('button', { name: 'Pagar com Pix' }).click();
    await page.getByText('Confira o e-mail: ele deve ser como nome@exemplo.com.br.').waitFor();
    expect(requests.some((u) => u.includes('/api/public/'))).toBe(false); // refused before any request
    await expectAccessible();
    await shot(page, 'checkout-02-link-form-checked');

    await page.getByLabel('E-mail').fill(PAYER.email);
    await page.getByLabel('CPF ou CNPJ').fill('');
    await page.getByLabel('CPF ou CNPJ').pressSequentially('52998224725');
    await page.getByText('CPF válido.').waitFor();
    const answered = page.waitForResponse((r) => r.url().endsWith(`/api/public/pay/${link.slug}`));
    await page.getByRole('button', { name: 'Pagar com Pix' }).click();
    const payment = (await (await answered).json()) as PixPaymentBody;
    await page.getByRole('heading', { name: 'Pague com Pix' }).waitFor();
    const qr = page.getByRole('img', { name: 'QR Code do Pix' });
    expect(await qr.getAttribute('src')).toBe(payment.pixQrCode);
    // decoded: the data: URI is a QR the browser could draw
    expect(
      await qr.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
    ).toBeGreaterThan(0);
    expect(await page.getByLabel('Código Pix copia e cola').inputValue()).toBe(payment.pixCopyPaste);
    await page.getByRole('button', { name: 'Copiar código Pix' }).click();
    await page.getByRole('button', { name: 'Código copiado' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(payment.pixCopyPaste);
    await expectAccessible();
    await shot(page, 'checkout-03-link-pix');

    // a reload shows the same Pix (no second charge) and waits for it again
    await page.reload();
    await page.getByRole('heading', { name: 'Pague com Pix' }).waitFor();
    expect(await page.getByLabel('Código Pix copia e cola').inputValue()).toBe(payment.pixCopyPaste);
    const [{ n }] = (await server.runtime.platform.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM sales WHERE payment_link_id = $1',
      [link.id],
    )) as [{ n: number }];
    expect(n).toBe(1);

    // the stream is open; the sale is paid as its processor would report it, and the page turns by itself
    await expect.poll(() => requests.filter((u) => u.endsWith('/events')).length).toBe(2);
    await page.evaluate('window.__sameDocument = true');
    const before = requests.length;
    const paid = await moveTo(server, merchant, payment.saleId, 'PAGO');
    expect(paid.status).toBe(200);
    await page.getByRole('heading', { level: 1, name: 'Pagamento confirmado' }).waitFor();
    expect(await page.evaluate('window.__sameDocument')).toBe(true); // no reload
    expect(requests.slice(before)).toEqual([]); // no polling: the stream told it
    await page.getByText('Recebemos seu pagamento de R$ 199,00. Obrigado!').waitFor();
    await expectAccessible();
    await shot(page, 'checkout-04-link-paid');
  });

  it('an open amount is typed by the buyer, within the link’s range', async () => {
    const link = await createLink(server, merchant, {
      title: 'Doação',
      amountCents: undefined,
      minCents: 500,
      maxCents: 100000,
    });
    await page.goto(`${server.url}/pay/${link.slug}`);
    await page.getByLabel('Valor (R$)').fill('2,00');
    await page.getByLabel('Nome completo').fill(PAYER.name);
    await page.getByLabel('E-mail').fill(PAYER.email);
    await page.getByLabel('CPF ou CNPJ').fill('11.222.333/0001-81');
    await page.getByRole('button', { name: 'Pagar com Pix' }).click();
    await page.getByText('O valor deve ser de R$ 5,00 a R$ 1.000,00.').waitFor();
    await expectAccessible();
    await shot(page, 'checkout-05-open-amount-refused');
    await page.getByLabel('Valor (R$)').fill('25,50');
    await page.getByRole('button', { name: 'Pagar com Pix' }).click();
    await page.getByRole('heading', { name: 'Pague com Pix' }).waitFor();
    expect(await page.getByText('R$ 25,50').isVisible()).toBe(true);
  });
});

describe('a one-use link whose use another payer holds', () => {
  it('says another payment holds it and may free it: the form stays for a later try', async () => {
    const link = await createLink(server, merchant, { title: 'Aula única', maxUses: 1 });
    // another payer's Pix, pending, holds the link's one use
    const first = await call('POST', `${server.url}/api/public/pay/${link.slug}`, {
      body: { name: PAYER.name, email: PAYER.email, document: PAYER.document },
    });
    expect(first.status, first.text).toBe(201);
    await page.goto(`${server.url}/pay/${link.slug}`);
    await page.getByLabel('Nome completo').fill(PAYER.name);
    await page.getByLabel('E-mail').fill(PAYER.email);
    await page.getByLabel('CPF ou CNPJ').fill('11.222.333/0001-81');
    const button = page.getByRole('button', { name: 'Pagar com Pix' });
    await button.click();
    await page
      .getByText('Este link está reservado por outro pagamento em andamento.', { exact: false })
      .waitFor();
    expect(await page.getByText('Esta página não aceita mais pagamentos.').count()).toBe(0);
    // the use comes back if that payment lapses: nothing is closed
    expect(await button.isDisabled()).toBe(false);
    await expectAccessible();
  });
});

describe('a buyer pays a payment link by boleto', () => {
  it('gives the address, sees the linha digitável, its copy button and the PDF, then the confirmation', async () => {
    const link = await createLink(server, merchant, { title: 'Curso de violão', methods: ['PIX', 'BOLETO'] });
    await page.goto(`${server.url}/pay/${link.slug}`);
    await page.getByLabel('Nome completo').fill(PAYER.name);
    await page.getByLabel('E-mail').fill(PAYER.email);
    await page.getByLabel('CPF ou CNPJ').fill(PAYER.document);
    await page.getByRole('radio', { name: 'Boleto' }).check();
    await page.getByRole('group', { name: 'Endereço (vai no boleto)' }).waitFor();
    await page.getByLabel('CEP').pressSequentially('0100100');
    await page.getByRole('button', { name: 'Gerar boleto' }).click();
    await page.getByText('Um CEP tem 8 dígitos.').waitFor();
    await page.getByText('Informe a rua.').waitFor();
    await page.getByText('Escolha o estado.').waitFor();
    expect(requests.some((u) => u.includes('/api/public/'))).toBe(false);
    await expectAccessible();
    await shot(page, 'checkout-13-boleto-form-checked');

    await page.getByLabel('CEP').pressSequentially('0');
    expect(await page.getByLabel('CEP').inputValue()).toBe('01001-000');
    await page.getByLabel('Rua').fill('Rua das Flores');
    await page.getByLabel('Número').fill('100');
    await page.getByLabel('Bairro').fill('Centro');
    await page.getByLabel('Cidade').fill('São Paulo');
    await page.getByLabel('Estado').selectOption('SP');
    const answered = page.waitForResponse((r) => r.url().endsWith(`/api/public/pay/${link.slug}/boleto`));
    await page.getByRole('button', { name: 'Gerar boleto' }).click();
    const boleto = (await (await answered).json()) as {
      saleId: string;
      digitableLine: string;
      pdfUrl: string;
      pixCopyPaste: string;
    };
    await page.getByRole('heading', { name: 'Boleto gerado' }).waitFor();
    expect((await page.getByLabel('Linha digitável').inputValue()).replace(/\D/g, '')).toBe(
      boleto.digitableLine,
    );
    await page.getByRole('button', { name: 'Copiar linha digitável' }).click();
    await page.getByRole('button', { name: 'Linha copiada' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(boleto.digitableLine);
    const pdf = page.getByRole('link', { name: 'Abrir o PDF do boleto' });
    expect(await pdf.getAttribute('href')).toBe(new URL(boleto.pdfUrl).pathname);
    expect((await call('GET', `${server.url}${new URL(boleto.pdfUrl).pathname}`)).status).toBe(200);
    // its Pix on the page too, not only in the PDF: a phone pays it with the bank's app at once
    await page.getByRole('img', { name: 'QR Code do Pix do boleto' }).waitFor();
    expect(await page.getByLabel('Código Pix copia e cola').inputValue()).toBe(boleto.pixCopyPaste);
    await page.getByRole('button', { name: 'Copiar código Pix' }).click();
    await page.getByRole('button', { name: 'Código copiado' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(boleto.pixCopyPaste);
    await expectAccessible();
    await shot(page, 'checkout-14-boleto');

    await expect.poll(() => requests.filter((u) => u.endsWith('/events')).length).toBe(1);
    expect((await moveTo(server, merchant, boleto.saleId, 'PAGO')).status).toBe(200);
    await page.getByRole('heading', { level: 1, name: 'Pagamento confirmado' }).waitFor();
    await shot(page, 'checkout-15-boleto-paid');
  });
});

describe('a link whose methods the gateway no longer takes', () => {
  it('offers nothing it cannot do: a card link on a gateway without an acquirer says so, with no form', async () => {
    // SANDBOX off: no PSP and no usable acquirer; the link was made when cards were taken (no API makes it now)
    const off = await startServer({ workers: false, env: { SANDBOX: 'off' } });
    try {
      const owner = await createMerchant(off, 'Loja da Maria');
      await off.runtime.platform.db.query(
        `INSERT INTO payment_links (id, account_id, slug, title, amount_cents, methods, metadata)
         VALUES ($1, $2, 'CCCCCCCCCCCCCCCC', 'Assinatura', 1000, '{CREDIT_CARD}', '{}')`,
        [randomUUID(), owner.accountId],
      );
      expect((await page.goto(`${off.url}/pay/CCCCCCCCCCCCCCCC`))?.status()).toBe(200);
      await page
        .getByRole('alert')
        .filter({ hasText: 'No momento esta página não aceita nenhuma forma de pagamento. Fale com a loja.' })
        .waitFor();
      expect(await page.getByRole('button').count()).toBe(0);
      await expectAccessible();
      await shot(page, 'checkout-12-no-method');
    } finally {
      requests = [];
      await off.close();
    }
  });
});

describe('a checkout session', () => {
  it('shows its items and amount, and once paid its confirmation with the way back to the store', async () => {
    const session = await createSession(server, merchant, { cancelUrl: 'https://loja.example.com/carrinho' });
    expect((await page.goto(`${server.url}/checkout/${session.id}`))?.status()).toBe(200);
    await page.getByText('2 × Camiseta').waitFor();
    expect(await page.getByText('R$ 99,80').first().isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: 'Voltar para a loja' }).getAttribute('href')).toBe(
      'https://loja.example.com/carrinho',
    );
    await expectAccessible();
    await shot(page, 'checkout-06-session-form');

    const pay = await call<PixPaymentBody>('POST', `${server.url}/api/public/checkout/${session.id}`, {
      body: PAYER,
    });
    await moveTo(server, merchant, pay.body.saleId, 'PAGO');
    // a paid session's page is its confirmation; the store's address is offered (and followed after a while,
    // which this test does not wait for: it leaves the gateway's origin)
    expect((await page.goto(`${server.url}/checkout/${session.id}`))?.status()).toBe(200);
    await page.getByRole('heading', { level: 1, name: 'Pagamento confirmado' }).waitFor();
    expect(await page.getByRole('link', { name: 'Voltar agora' }).getAttribute('href')).toBe(
      `https://loja.example.com/obrigado?pedido=1001&session_id=${session.id}`,
    );
    await expectAccessible();
    await shot(page, 'checkout-07-session-paid');
  });
});

describe('pages with nothing to pay', () => {
  it('an expired link, a used-up link, an unknown link and an unknown session: pt-BR pages with 410 and 404', async () => {
    const expired = await createLink(server, merchant, {
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    await server.runtime.platform.db.query(
      `UPDATE payment_links SET expires_at = now() - interval '1 second' WHERE id = $1`,
      [expired.id],
    );
    const usedUp = await createLink(server, merchant, { maxUses: 1 });
    const first = await call<PixPaymentBody>('POST', `${server.url}/api/public/pay/${usedUp.slug}`, {
      body: PAYER,
    });
    await moveTo(server, merchant, first.body.saleId, 'PAGO');

    const cases = [
      [`/pay/${expired.slug}`, 410, 'Este link de pagamento expirou', 'checkout-08-link-expired'],
      [`/pay/${usedUp.slug}`, 410, 'Este link de pagamento já foi usado', 'checkout-09-link-used-up'],
      ['/pay/AAAAAAAAAAAAAAAA', 404, 'Link de pagamento não encontrado', 'checkout-10-link-unknown'],
      [`/checkout/${randomUUID()}`, 404, 'Página de pagamento não encontrada', 'checkout-11-session-unknown'],
    ] as const;
    for (const [path, status, title, name] of cases) {
      const res = await page.goto(`${server.url}${path}`);
      expect(res?.status(), path).toBe(status);
      await page.getByRole('heading', { level: 1, name: title }).waitFor();
      expect(await page.title()).toBe(title);
      await expectAccessible();
      await shot(page, name);
    }
  });
});
