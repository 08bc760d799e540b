/**
 * A finance operator in the console, in Debian's chromium: makes a fee plan in Tarifas, puts an account on it
 * from the account's page, and approves an anticipation waiting for a decision. Axe-clean, screenshots kept.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anticipatingMerchant, cardSale, plusDays } from '../anticipations/fixtures.js';
import { seriousViolations } from '../support/axe.js';
import { launch, shot } from '../support/browser.js';
import { call } from '../support/http.js';
import { createOperator, signInToConsole, type TestOperator } from '../support/operators.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let browser: Browser;
let page: Page;
let finance: TestOperator;

beforeAll(async () => {
  server = await startServer({ workers: false, env: { CARD_SETTLEMENT_DAYS: '30' } });
  browser = await launch();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  finance = await createOperator(server, 'finance');
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function clean(name: string): Promise<void> {
  await shot(page, name);
  expect(await seriousViolations(page), name).toEqual([]);
}

describe('finance in the console', () => {
  it('makes a plan, puts an account on it, and approves an anticipation', async () => {
    const m = await anticipatingMerchant(server, finance);
    await cardSale(server, m, 20000, 2);
    const requested = await call<{ status: string }>('POST', `${server.url}/api/anticipations`, {
      headers: m.panel,
      body: { upTo: plusDays(30) },
    });
    expect(requested.body.status).toBe('requested');

    await signInToConsole(page, server, finance);
    const menu = page.getByRole('navigation', { name: 'Principal' });

    await menu.getByRole('link', { name: 'Tarifas' }).click();
    await page.getByLabel('Nome do plano').fill('Varejo 2026');
    // a percent that is none is stopped in the form, naming the field, before anything is sent
    await page.getByLabel('Crédito à vista (%)').fill('150');
    await page.getByRole('button', { name: 'Criar plano' }).click();
    expect(await page.getByRole('dialog', { name: 'Criar o plano de tarifas?' }).isVisible()).toBe(false);
    expect(
      await page
        .getByLabel('Crédito à vista (%)')
        .evaluate(
          (e) => (e as unknown as { validity: { patternMismatch: boolean } }).validity.patternMismatch,
        ),
    ).toBe(true);
    await page.getByLabel('Crédito à vista (%)').fill('3,19');
    await page.getByRole('button', { name: 'Criar plano' }).click();
    await page
      .getByRole('dialog', { name: 'Criar o plano de tarifas?' })
      .getByRole('button', { name: 'Criar plano' })
      .click();
    await page.getByRole('status').getByText('Plano "Varejo 2026" criado.').waitFor();
    const plans = page.getByRole('table', { name: 'Planos de tarifas' });
    await plans.getByRole('cell', { name: 'Varejo 2026', exact: true }).waitFor();
    await plans.getByRole('cell', { name: '3,19 %' }).waitFor();
    await clean('console-finance-01-plans');

    await page.goto(`${server.url}/ops#/contas/${m.accountId}`);
    await page.getByLabel('Plano de tarifas', { exact: true }).selectOption({ label: 'Varejo 2026' });
    await page.getByRole('button', { name: 'Aplicar plano' }).click();
    await page
      .getByRole('dialog', { name: 'Aplicar o plano de tarifas?' })
      .getByText('Varejo 2026')
      .waitFor();
    await page
      .getByRole('dialog', { name: 'Aplicar o plano de tarifas?' })
      .getByRole('button', { name: 'Confirmar' })
      .click();
    await page.getByRole('status').getByText('Plano "Varejo 2026" aplicado à conta').waitFor();
    // the plan by its name, and its prices (not the account's own, which it replaces)
    await page.getByText('Varejo 2026 (no lugar das tarifas próprias da conta)').waitFor();
    expect(await page.getByRole('region', { name: 'Tarifas' }).textContent()).toContain('3,19 %');
    await clean('console-finance-02-account-plan');

    // a plan is changed from its row (PATCH): sales made before keep their fees, which the dialog says
    await menu.getByRole('link', { name: 'Tarifas' }).click();
    await page.getByRole('button', { name: 'Alterar o plano Varejo 2026' }).click();
    expect(await page.getByLabel('Crédito à vista (%)').inputValue()).toBe('3,19');
    await page.getByLabel('Crédito à vista (%)').fill('3,29');
    await page.getByRole('button', { name: 'Salvar plano' }).click();
    const change = page.getByRole('dialog', { name: 'Alterar o plano de tarifas?' });
    await change.getByText('vale só para as vendas criadas depois').waitFor();
    await change.getByRole('button', { name: 'Salvar plano' }).click();
    await page.getByRole('status').getByText('Plano "Varejo 2026" alterado').waitFor();
    await plans.getByRole('cell', { name: '3,29 %' }).waitFor();

    await menu.getByRole('link', { name: 'Antecipações' }).click();
    const table = page.getByRole('table', { name: 'Antecipações' });
    await table.getByRole('cell', { name: 'Aguardando decisão' }).waitFor();
    // whose it is, before finance decides on it
    await table.getByRole('link', { name: m.name }).first().waitFor();
    await clean('console-finance-03-anticipations');
    await page
      .getByRole('button', { name: /^Aprovar a antecipação/ })
      .first()
      .click();
    await page
      .getByRole('dialog', { name: 'Aprovar a antecipação?' })
      .getByRole('button', { name: 'Confirmar' })
      .click();
    await page.getByRole('status').getByText('Antecipação aprovada e paga').waitFor();
    await page.getByText('Nenhuma antecipação aguardando decisão.').waitFor();
    const list = await call<{ data: { status: string }[] }>('GET', `${server.url}/api/anticipations`, {
      headers: m.keys,
    });
    expect(list.body.data[0]!.status).toBe('paid');
  });
});
