/**
 * "Nova cobrança" by card in Debian's chromium against a real server (the sandbox acquirer): the merchant keys in
 * the payer's card, its brand shown, installments with each amount; a refused card's reason on the sale's page,
 * then a card paid in 3 installments. Screenshots in test-output/screenshots (panel-card-*).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { badCheckDigit, cardEnding } from '../cards/cards.js';
import { seriousViolations } from '../support/axe.js';
import { cutFields, launch, shot } from '../support/browser.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let merchant: TestMerchant;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  server = await startServer({ workers: false });
  merchant = await createMerchant(server, 'Loja dos Cartões');
  browser = await launch();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function newCardCharge(number: string): Promise<void> {
  await page.goto(`${server.url}/#/vendas`);
  await page.getByRole('link', { name: 'Nova cobrança' }).click();
  await page.getByRole('heading', { level: 1, name: 'Nova cobrança' }).waitFor();
  await page.getByLabel('Cartão de crédito').check();
  await page.getByLabel('Valor (R$)').fill('300,00');
  await page.getByLabel('Descrição').fill('Curso online');
  await page.getByLabel('Nome', { exact: true }).fill('Maria Silva');
  await page.getByLabel('CPF ou CNPJ').fill('529.982.247-25');
  await page.getByLabel('E-mail').fill('maria@example.com');
  await page.getByLabel('Telefone').fill('+55 11 98765-4321');
  await page.getByLabel('Número do cartão').fill(number);
  await page.getByLabel('Nome impresso no cartão').fill('MARIA SILVA');
  await page.getByLabel('Validade (MM/AA)').fill(`12/${String(new Date().getFullYear() + 2).slice(2)}`);
  await page.getByLabel('CVV').fill('123');
}

describe('"Nova cobrança" charges a card', () => {
  it('offers Cartão de crédito when the gateway takes cards; refused shows the reason, approved is paid in 3x', async () => {
    await page.goto(`${server.url}/`);
    await page.getByLabel('E-mail').fill(merchant.email);
    await page.getByLabel('Senha').fill(merchant.password);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('heading', { name: 'Visão geral' }).waitFor();

    await newCardCharge(cardEnding('2'));
    await page.getByText('Bandeira: Visa').waitFor();
    const installments = page.getByLabel('Parcelas');
    expect(await installments.locator('option').count()).toBe(12);
    expect((await installments.locator('option').nth(2).textContent())?.replace(/\s/g, ' ')).toBe(
      '3x de R$ 100,00',
    );
    await installments.selectOption('3');
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'panel-card-01-form');
    await page.getByRole('button', { name: 'Cobrar no cartão' }).click();
    await page.getByRole('heading', { level: 1, name: /Venda/ }).waitFor();
    await page.getByText('Não Autorizada (código 05)', { exact: false }).waitFor();
    await shot(page, 'panel-card-02-refused');

    // a number whose check digit is wrong: marked beside the field, in words (the payer pages say the same)
    await newCardCharge(badCheckDigit(cardEnding('1')));
    await page.getByRole('button', { name: 'Cobrar no cartão' }).click();
    await page.getByText('Número do cartão inválido: confira os dígitos.').waitFor();
    expect(await page.getByLabel('Número do cartão').getAttribute('aria-invalid')).toBe('true');
    // a card long expired: its expiry marked, in words
    await newCardCharge(cardEnding('1'));
    await page.getByLabel('Validade (MM/AA)').fill('01/20');
    await page.getByRole('button', { name: 'Cobrar no cartão' }).click();
    await page.getByText('Validade inválida ou cartão vencido: confira o MM/AA.').waitFor();
    expect(await page.getByLabel('Validade (MM/AA)').getAttribute('aria-invalid')).toBe('true');

    const approved = cardEnding('1');
    await newCardCharge(approved);
    await page.getByLabel('Parcelas').selectOption('3');
    await page.getByRole('button', { name: 'Cobrar no cartão' }).click();
    await page.getByRole('heading', { level: 1, name: /Venda/ }).waitFor();
    const uuid = new URL(page.url()).hash.split('/').pop();
    const [sale] = await server.runtime.platform.db.query<{
      status: string;
      installments: number;
      payment_method: string;
      card_last_four: string;
    }>('SELECT status, installments, payment_method, card_last_four FROM sales WHERE uuid = $1', [uuid]);
    expect(sale).toEqual({
      status: 'PAGO',
      installments: 3,
      payment_method: 'CREDIT_CARD',
      card_last_four: approved.slice(-4),
    });
    await page.getByText(`final ${approved.slice(-4)}`, { exact: false }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'panel-card-03-paid');
  });

  it('on a phone, every field the merchant types is read whole (a card number, an e-mail, a phone)', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await newCardCharge(cardEnding('2'));
    await page.getByLabel('E-mail').fill('maria.silva@example.com.br');
    expect(await cutFields(page)).toEqual([]);
    await page.getByText('Todos os dados do pagador são obrigatórios.').waitFor();
    await shot(page, 'panel-card-04-phone-form');
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});
