/**
 * The console's Regras de risco in Debian's chromium: a risk operator writes a review rule from the page, a card
 * sale above its amount waits in the Fila de análise, the operator approves it there and the sale is captured;
 * the rule is deleted from the page. Every page axe-clean, screenshots kept.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pauseCardPayments } from '../../src/accounts/status.js';
import { cardBody, cardEnding } from '../cards/cards.js';
import { saleInput } from '../sales/fixtures.js';
import { seriousViolations } from '../support/axe.js';
import { launch, shot } from '../support/browser.js';
import { createMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { createOperator, signInToConsole } from '../support/operators.js';
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

describe('Regras de risco', () => {
  it('a risk operator writes a review rule, approves the held card sale from the queue, deletes the rule', async () => {
    const merchant = await createMerchant(server);
    const risk = await createOperator(server, 'risk');
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signInToConsole(page, server, risk);
    const menu = page.getByRole('navigation', { name: 'Principal' });
    await menu.getByRole('link', { name: 'Regras de risco' }).click();
    await page.getByRole('heading', { name: 'Regras de risco' }).waitFor();
    await page.getByText('Nenhuma regra ainda.').waitFor();

    await page.getByLabel('Nome da regra').fill('Cartão acima de R$ 500');
    // a rule needs a condition: not confirmed before one is filled
    await page.getByRole('button', { name: 'Criar regra' }).click();
    const empty = page.getByRole('dialog', { name: 'Criar a regra de risco?' });
    await empty.getByText(/falta uma condição/).waitFor();
    expect(await empty.getByRole('button', { name: 'Criar regra' }).isDisabled()).toBe(true);
    await empty.getByRole('button', { name: 'Voltar' }).click();
    await page.getByLabel('Ação').selectOption('review');
    await page.getByLabel('Valor acima de (R$)').fill('500,00');
    await page.getByLabel('Crédito').check();
    await page.getByRole('button', { name: 'Criar regra' }).click();
    const create = page.getByRole('dialog', { name: 'Criar a regra de risco?' });
    await create.getByText(/valor acima de R\$\s500,00/).waitFor();
    await create.getByRole('button', { name: 'Criar regra' }).click();
    await page.getByRole('status').getByText('Regra "Cartão acima de R$ 500" criada').waitFor();
    const row = page.getByRole('row', { name: /Cartão acima de R\$ 500/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('Analisar (cartão)');
    await clean(page, 'console-risk-01-rules');

    const token = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
      headers: { 'x-api-public-key': merchant.publicKey },
      body: cardBody(cardEnding('0')),
    });
    const sale = await call<{ id: number; status: string }>('POST', `${server.url}/api/transactions`, {
      headers: merchant.keys,
      body: saleInput({
        amount: 80_000,
        paymentMethod: 'CREDIT_CARD',
        card: { token: token.body.token },
        items: [{ title: 'Bicicleta', unitPrice: 80_000, quantity: 1, tangible: false }],
      }),
    });
    expect(sale.body.status).toBe('EM_PROCESSAMENTO');

    await menu.getByRole('link', { name: 'Fila de análise' }).click();
    const held = page.getByRole('row', { name: new RegExp(`venda ${sale.body.id} `) });
    await held.waitFor();
    await clean(page, 'console-risk-02-queue');
    await held.getByRole('button', { name: /Aprovar/ }).click();
    await page
      .getByRole('dialog', { name: 'Aprovar a análise?' })
      .getByRole('button', { name: 'Confirmar' })
      .click();
    await page
      .getByRole('status')
      .getByText(/Análise #\d+ aprovada/)
      .waitFor();
    await page.getByText('Nada para analisar.').waitFor();
    const after = await call<{ status: string }>('GET', `${server.url}/api/transactions/${sale.body.id}`, {
      headers: merchant.keys,
    });
    expect(after.body.status).toBe('PAGO');

    await menu.getByRole('link', { name: 'Regras de risco' }).click();
    await page.getByRole('button', { name: 'Excluir a regra Cartão acima de R$ 500' }).click();
    await page
      .getByRole('dialog', { name: 'Excluir a regra?' })
      .getByRole('button', { name: 'Excluir regra' })
      .click();
    await page.getByRole('status').getByText('Regra "Cartão acima de R$ 500" excluída').waitFor();
    await page.getByText('Nenhuma regra ainda.').waitFor();

    // the audit log says the rule as the rules page does: its conditions and action in words, amounts in reais
    await menu.getByRole('link', { name: 'Auditoria' }).click();
    const audit = page.getByRole('table', { name: 'Auditoria' });
    await audit
      .getByText(/condições: meios: Crédito; valor acima de R\$\s500,00; ação: Analisar \(cartão\)/)
      .first()
      .waitFor();
    const text = (await audit.textContent()) ?? '';
    expect(text).not.toContain('amountCentsAbove');
    expect(text).not.toContain('"methods"');
  });

  it("a shop's cards paused by its refusals, the review rejected: its page says so, and the operator resumes them", async () => {
    const merchant = await createMerchant(server, 'Loja Pausada');
    await server.runtime.platform.db.tx((tx) => pauseCardPayments(tx, merchant.accountId));
    const risk = await createOperator(server, 'risk');
    const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await signInToConsole(page, server, risk);
    await page.goto(`${server.url}/ops#/contas/${merchant.accountId}`);
    await page.getByText('Pausados: recusas demais em uma hora (análise de risco)').waitFor();
    await page.getByRole('button', { name: 'Retomar pagamentos com cartão' }).click();
    const dialog = page.getByRole('dialog', { name: 'Retomar os pagamentos com cartão?' });
    await clean(page, 'console-risk-03-resume-cards-phone');
    await dialog.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByRole('status').getByText('Pagamentos com cartão retomados.').waitFor();
    await page.getByText('Aceitos', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Retomar pagamentos com cartão' }).count()).toBe(0);
    const token = await call('POST', `${server.url}/api/cards/tokens`, {
      headers: { 'x-api-public-key': merchant.publicKey },
      body: cardBody(cardEnding('0')),
    });
    expect(token.status, token.text).toBe(201);
  });
});
