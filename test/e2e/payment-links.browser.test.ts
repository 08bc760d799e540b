/**
 * "Links de pagamento" in the panel, in Debian's chromium: a shop owner makes a link without code, copies and
 * opens it, sees its QR code, a payer pays it, the link shows its use and sale, and is turned off and on.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecipient, recipientBalance } from '../recipients/fixtures.js';
import { moveTo } from '../sales/fixtures.js';
import { seriousViolations } from '../support/axe.js';
import { launch, shot } from '../support/browser.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let browser: Browser;
let page: Page;
let m: TestMerchant;

beforeAll(async () => {
  server = await startServer({ workers: false });
  m = await createMerchant(server, 'Ateliê da Ana');
  browser = await launch();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('Links de pagamento', () => {
  it('makes a fixed link, shows its address and QR code, counts its paid sale, turns it off and on', async () => {
    await page.goto(`${server.url}/`);
    await page.getByLabel('E-mail').fill(m.email);
    await page.getByLabel('Senha').fill(m.password);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page
      .getByRole('navigation', { name: 'Principal' })
      .getByRole('link', { name: 'Links de pagamento' })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Links de pagamento' }).waitFor();
    await page.getByText('Nenhum link criado ainda.').waitFor();

    await page.getByLabel('Título (o que o comprador vê)').fill('Vestido de linho');
    await page.getByLabel('Valor (R$)').fill('249,90');
    await page.getByLabel('Boleto').check();
    await page.getByLabel('Usos pagos (opcional)').fill('3');
    await shot(page, 'links-01-form');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Criar link' }).click();

    const detail = page.getByRole('region', { name: 'Link: Vestido de linho' });
    const url = (await detail.getByTestId('link-url').textContent())!;
    expect(url).toMatch(/\/pay\/[A-Za-z0-9_-]{16}$/);
    await detail.getByRole('img', { name: 'QR code do link Vestido de linho' }).waitFor();
    await detail.getByText('Nenhuma venda por este link ainda.').waitFor();
    const table = page.getByRole('table', { name: 'Links de pagamento' });
    await table.getByRole('cell', { name: 'R$ 249,90' }).waitFor();
    await table.getByRole('cell', { name: 'PIX, Boleto' }).waitFor();
    await table.getByRole('cell', { name: '0 de 3' }).waitFor();
    await shot(page, 'links-02-made');
    expect(await seriousViolations(page)).toEqual([]);

    // a payer pays it (Pix), and the link shows its use and sale
    const slug = url.split('/pay/')[1]!;
    const paid = await call<{ saleId: string }>('POST', `${server.url}/api/public/pay/${slug}`, {
      body: { name: 'Júlia Prado', email: 'julia@example.com', document: '52998224725' },
    });
    expect(paid.status, paid.text).toBe(201);
    // while its Pix waits, it holds a use: the list says so (the API's usesInProgress)
    await page.reload();
    await table.getByRole('cell', { name: '0 de 3 (1 pagamento em andamento)' }).waitFor();
    const pending = await call<{ data: { title: string; uses: number; usesInProgress: number }[] }>(
      'GET',
      `${server.url}/api/payment-links`,
      { headers: m.keys },
    );
    expect(pending.body.data.find((l) => l.title === 'Vestido de linho')).toMatchObject({
      uses: 0,
      usesInProgress: 1,
    });
    expect((await moveTo(server, m, paid.body.saleId, 'PAGO')).status).toBe(200);
    await page.reload();
    await table.getByRole('cell', { name: '1 de 3', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Abrir o link Vestido de linho' }).click();
    const sales = page.getByRole('table', { name: 'Vendas do link Vestido de linho' });
    await sales.getByRole('cell', { name: 'Júlia Prado' }).waitFor();
    await sales.getByRole('cell', { name: 'Pago' }).waitFor();
    await shot(page, 'links-03-sold');

    await page.getByRole('button', { name: 'Desativar o link Vestido de linho' }).click();
    await table.getByRole('cell', { name: 'Desativado' }).waitFor();
    expect((await call('GET', `${server.url}/api/public/pay/${slug}`)).status).toBe(410);
    await page.getByRole('button', { name: 'Ativar o link Vestido de linho' }).click();
    await table.getByRole('cell', { name: 'Ativo' }).waitFor();
    expect((await call('GET', `${server.url}/api/public/pay/${slug}`)).status).toBe(200);
  });

  it('makes an open-amount link whose page lets the payer choose within its range', async () => {
    await page.getByLabel('Título (o que o comprador vê)').fill('Doação');
    await page.getByLabel('O comprador escolhe').check();
    await page.getByLabel('Mínimo (R$, opcional)').fill('10,00');
    await page.getByLabel('Máximo (R$, opcional)').fill('500,00');
    await page.getByRole('button', { name: 'Criar link' }).click();
    const table = page.getByRole('table', { name: 'Links de pagamento' });
    await table.getByRole('cell', { name: 'de R$ 10,00 a R$ 500,00' }).waitFor();
    const links = await call<{ data: { title: string; minCents: number; maxCents: number }[] }>(
      'GET',
      `${server.url}/api/payment-links`,
      { headers: m.keys },
    );
    expect(links.body.data.find((l) => l.title === 'Doação')).toMatchObject({
      minCents: 1000,
      maxCents: 50000,
    });
    await shot(page, 'links-04-open-amount');
  });

  it('offers Cartão de crédito when the gateway takes cards, with the most installments', async () => {
    await page.getByLabel('Título (o que o comprador vê)').fill('Curso de costura');
    await page.getByLabel('Fixo').check();
    await page.getByLabel('Valor (R$)').fill('600,00');
    await page.getByLabel('PIX').uncheck();
    await page.getByLabel('Cartão de crédito').check();
    await page.getByLabel('Parcelas no cartão (até)').selectOption('6');
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'links-05-card-form');
    await page.getByRole('button', { name: 'Criar link' }).click();
    const table = page.getByRole('table', { name: 'Links de pagamento' });
    await table.getByRole('cell', { name: 'Cartão de crédito' }).waitFor();
    const links = await call<{ data: { title: string; methods: string[]; maxInstallments: number }[] }>(
      'GET',
      `${server.url}/api/payment-links`,
      { headers: m.keys },
    );
    expect(links.body.data.find((l) => l.title === 'Curso de costura')).toMatchObject({
      methods: ['CREDIT_CARD'],
      maxInstallments: 6,
    });

    // the next link refused: the page says why, and no longer that the one before was made
    await page.getByText('Link criado: Curso de costura.').waitFor();
    await page.getByLabel('Título (o que o comprador vê)').fill('Aula avulsa');
    await page.getByLabel('Valor (R$)').fill('abc');
    await page.getByRole('button', { name: 'Criar link' }).click();
    await page.getByText('Digite o valor em reais, como 199,90.').waitFor();
    expect(await page.getByText('Link criado:').count()).toBe(0);
  });

  it('a marketplace splits a link with its recipients without code, on a phone', async () => {
    const ana = await createRecipient(server, m, { name: 'Costureira Ana' });
    const bia = await createRecipient(server, m, { name: 'Bordadeira Bia', email: 'bia@example.com' });
    // a marketplace of more recipients than a page of the list: Ana and Bia, the oldest, are on its third page
    for (let batch = 0; batch < 4; batch++) {
      await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          createRecipient(server, m, { name: `Ateliê ${batch * 30 + i}` }),
        ),
      );
    }
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Links de pagamento' }).waitFor();
    await page.getByLabel('Título (o que o comprador vê)').fill('Kit bordado');
    await page.getByLabel('Fixo').check();
    await page.getByLabel('Valor (R$)').fill('100,00');
    await page
      .getByLabel('Depois de pagar, levar o comprador a (opcional)')
      .fill('https://loja.example.com/obrigado');
    await page.getByRole('button', { name: 'Adicionar recebedor' }).click();
    await page.getByRole('button', { name: 'Adicionar recebedor' }).click();
    // one recipient twice is refused in the form, before anything is sent
    await page.locator('#split-r-0').selectOption({ label: 'Costureira Ana' });
    await page.locator('#split-v-0').fill('25');
    await page.locator('#split-r-1').selectOption({ label: 'Costureira Ana' });
    await page.locator('#split-k-1').selectOption('amount');
    await page.locator('#split-v-1').fill('10,00');
    await page.getByRole('button', { name: 'Criar link' }).click();
    await page.getByText('Cada recebedor entra uma vez só na divisão.').waitFor();
    await page.locator('#split-r-1').selectOption({ label: 'Bordadeira Bia' });
    await page.getByLabel('Responde por estornos e disputas').first().check();
    await page.getByLabel('Quem paga as taxas').selectOption({ label: 'Costureira Ana' });
    await shot(page, 'links-06-split-phone');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Criar link' }).click();
    const detail = page.getByRole('region', { name: 'Link: Kit bordado' });
    await detail
      .getByTestId('link-split')
      .getByText(
        'Dividido com: Costureira Ana 25% (paga as taxas) (responde por estornos) · Bordadeira Bia R$ 10,00',
      )
      .waitFor();
    const links = await call<{ data: { title: string; slug: string; split: unknown; successUrl: string }[] }>(
      'GET',
      `${server.url}/api/payment-links`,
      { headers: m.keys },
    );
    const link = links.body.data.find((l) => l.title === 'Kit bordado')!;
    expect(link).toMatchObject({
      successUrl: 'https://loja.example.com/obrigado',
      split: [
        { recipientId: ana.id, percent: 25, chargeFees: true, liable: true },
        { recipientId: bia.id, amountCents: 1000 },
      ],
    });
    // its payer's sale is split so: Bia's R$ 10,00 whole, Ana's quarter less the fees
    const paid = await call<{ saleId: string }>('POST', `${server.url}/api/public/pay/${link.slug}`, {
      body: { name: 'Júlia Prado', email: 'julia@example.com', document: '52998224725' },
    });
    expect(paid.status, paid.text).toBe(201);
    expect((await moveTo(server, m, paid.body.saleId, 'PAGO')).status).toBe(200);
    expect((await recipientBalance(server, m, bia.id)).available).toBe(1000);
    const sale = await call<{ systemFee: number; split: { recipientId?: string; netCents: number }[] }>(
      'GET',
      `${server.url}/api/transactions/${paid.body.saleId}`,
      { headers: m.keys },
    );
    const anaNet = sale.body.split.find((p) => p.recipientId === ana.id)!.netCents;
    expect((await recipientBalance(server, m, ana.id)).available).toBe(anaNet);
    expect(anaNet).toBe(2500 - sale.body.systemFee);
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});
