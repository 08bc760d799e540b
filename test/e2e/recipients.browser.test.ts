/**
 * The panel's Recebedores in Debian's chromium: the platform's recipients with their balances, one recipient's
 * sales (with its share), withdrawals and statement, renamed and deactivated there, and another's latest
 * automatic payout (skipped, and why).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAutomaticPayouts } from '../../src/recipients/index.js';
import { createRecipient } from '../recipients/fixtures.js';
import { moveTo, saleInput } from '../sales/fixtures.js';
import { seriousViolations } from '../support/axe.js';
import { launch, shot } from '../support/browser.js';
import { createMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  server = await startServer({ workers: false });
  browser = await launch();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const text = (t: string) => t.replace(/\s/g, ' ');

describe('Recebedores', () => {
  it("lists the recipients with their balances and shows one's sales and withdrawals", async () => {
    const m = await createMerchant(server, 'Marketplace');
    const ana = await createRecipient(server, m, { name: 'Ateliê da Ana' });
    await createRecipient(server, m, { name: 'Seu João', transferInterval: 'weekly' });
    const sale = await call<{ uuid: string }>('POST', `${server.url}/api/transactions`, {
      headers: m.keys,
      body: saleInput({
        amount: 40_000,
        items: [{ title: 'Vaso de cerâmica', unitPrice: 40_000, quantity: 1, tangible: true }],
        split: [{ recipientId: ana.id, percent: 75 }],
      }),
    });
    expect(sale.status, sale.text).toBe(201);
    expect((await moveTo(server, m, sale.body.uuid, 'PAGO')).status).toBe(200);
    const cashout = await call('POST', `${server.url}/api/recipients/${ana.id}/cashout`, {
      headers: m.keys,
      body: { amount: '120.00' },
    });
    expect(cashout.status, cashout.text).toBe(201);
    // this week's automatic payout round: Seu João has nothing available
    const { db, queue } = server.runtime.platform;
    expect(await runAutomaticPayouts(db, queue, new Date())).toEqual({ paid: 0, skipped: 1 });

    await page.goto(`${server.url}/`);
    await page.getByLabel('E-mail').fill(m.email);
    await page.getByLabel('Senha').fill(m.password);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page
      .getByRole('navigation', { name: 'Principal' })
      .getByRole('link', { name: 'Recebedores' })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Recebedores' }).waitFor();
    const list = page.getByRole('table', { name: 'Recebedores' });
    await list.getByRole('cell', { name: 'Ateliê da Ana', exact: true }).waitFor();
    const rows = (await list.getByRole('row').allInnerTexts()).map(text);
    expect(rows).toHaveLength(3);
    expect(rows[1]).toContain('Seu João');
    expect(rows[1]).toContain('Semanal');
    expect(rows[2]).toContain('Ateliê da Ana');
    // 75 % of R$ 400,00 is R$ 300,00: R$ 120,00 of it in a withdrawal in progress
    expect(rows[2]).toContain('R$ 180,00');
    expect(rows[2]).toContain('R$ 120,00');
    await shot(page, 'recipients-01-list');
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Detalhes do recebedor Ateliê da Ana' }).click();
    const sales = page.getByRole('table', { name: 'Vendas de Ateliê da Ana' });
    await sales.getByRole('cell', { name: 'R$ 300,00', exact: true }).waitFor();
    expect(text(await sales.innerText())).toContain('R$ 400,00');
    const withdrawals = page.getByRole('table', { name: 'Saques de Ateliê da Ana' });
    await withdrawals.getByRole('cell', { name: 'ana@example.com', exact: true }).waitFor();
    expect(text(await withdrawals.innerText())).toContain('R$ 120,00');
    // its statement: the sale's share in, the withdrawal held
    const statement = page.getByRole('table', { name: 'Extrato de Ateliê da Ana' });
    await statement.getByRole('cell', { name: 'Venda paga (valor líquido)' }).waitFor();
    expect(text(await statement.innerText())).toContain('Saque solicitado (valor bloqueado)');
    await shot(page, 'recipients-02-detail');
    expect(await seriousViolations(page)).toEqual([]);

    // the sale's own page shows its split: who gets what, by name, who pays the fees and answers for refunds
    await page.goto(`${server.url}/#/vendas/${sale.body.uuid}`);
    const split = page.getByRole('table', { name: 'Divisão desta venda' });
    await split.getByRole('cell', { name: 'Ateliê da Ana', exact: true }).waitFor();
    const parties = (await split.getByRole('row').allInnerTexts()).map(text);
    expect(parties).toHaveLength(3);
    expect(parties[1]).toMatch(/^Ateliê da Ana\s+75 %\s+Não\s+Não\s+R\$ 300,00$/);
    // the platform keeps the rest, pays the fees and answers for refunds
    const own = (sale.body as unknown as { split: { recipientId: string | null; netCents: number }[] }).split;
    const platformNet = own.find((p) => p.recipientId === null)!.netCents;
    expect(parties[2]).toBe(
      `Sua conta o restante Sim Sim R$ ${(platformNet / 100).toFixed(2).replace('.', ',')}`,
    );
    await shot(page, 'recipients-02d-sale-split');
    expect(await seriousViolations(page)).toEqual([]);
    await page.goto(`${server.url}/#/recebedores`);
    await page.getByRole('button', { name: 'Detalhes do recebedor Ateliê da Ana' }).click();

    // a name the API refuses is marked in its field, with the API's reason in Portuguese
    await page.getByLabel('Nome', { exact: true }).fill('Ateliê www.golpe.com');
    await page.getByRole('button', { name: 'Renomear' }).click();
    await expect.poll(() => page.locator('#r-name').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#r-name-error').textContent()).toBe(
      'Use só texto: sem link, endereço da web ou domínio.',
    );
    // renamed and deactivated from the panel: the same route an integrator's key opens
    await page.getByLabel('Nome', { exact: true }).fill('Ateliê Ana Ltda');
    await page.getByRole('button', { name: 'Renomear' }).click();
    await page.getByRole('status').filter({ hasText: 'Nome alterado.' }).waitFor();
    await page.getByRole('button', { name: 'Desativar o recebedor Ateliê Ana Ltda' }).click();
    await page.getByRole('status').filter({ hasText: 'Recebedor desativado.' }).waitFor();
    await list.getByRole('cell', { name: 'Inativo', exact: true }).waitFor();
    const now = await call<{ name: string; active: boolean }>(
      'GET',
      `${server.url}/api/recipients/${ana.id}`,
      {
        headers: m.keys,
      },
    );
    expect(now.body).toMatchObject({ name: 'Ateliê Ana Ltda', active: false });
    await shot(page, 'recipients-02c-deactivated');
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Detalhes do recebedor Seu João' }).click();
    await page.getByText('Último repasse automático').waitFor();
    expect(text(await page.locator('dl.detail').innerText())).toMatch(
      /Último repasse automático\s+\d{2}\/\d{2}\/\d{4}: nenhum saque\. Nada disponível\. O saldo fica para o próximo período\./,
    );
    await shot(page, 'recipients-02b-last-payout');
    expect(await seriousViolations(page)).toEqual([]);

    // on a 390 px phone: no sideways scrolling, the page named in the tab
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await phone.goto(`${server.url}/`);
    await phone.getByLabel('E-mail').fill(m.email);
    await phone.getByLabel('Senha').fill(m.password);
    await phone.getByRole('button', { name: 'Entrar' }).click();
    await phone
      .getByRole('navigation', { name: 'Principal' })
      .getByRole('link', { name: 'Recebedores' })
      .click();
    // (on a phone each cell reads as "heading: value")
    await phone.getByRole('button', { name: 'Detalhes do recebedor Ateliê Ana Ltda' }).waitFor();
    await expect.poll(() => phone.title()).toBe('Recebedores · Painel do lojista');
    await phone.getByRole('button', { name: 'Detalhes do recebedor Ateliê Ana Ltda' }).click();
    await phone.getByRole('table', { name: 'Saques de Ateliê Ana Ltda' }).getByRole('row').nth(1).waitFor();
    const overflow = await phone.evaluate<number>(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(phone, 'recipients-03-phone');
    // the sale's split on a phone: each party a card of "heading: value" lines, nothing off screen
    await phone.goto(`${server.url}/#/vendas/${sale.body.uuid}`);
    const phoneSplit = phone.getByRole('table', { name: 'Divisão desta venda' });
    await phoneSplit.getByRole('cell', { name: /Ateliê Ana Ltda/ }).waitFor();
    expect(await phoneSplit.getByRole('cell', { name: /Ateliê Ana Ltda/ }).getAttribute('data-label')).toBe(
      'Parte',
    );
    expect(
      await phone.evaluate<number>(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      ),
    ).toBeLessThanOrEqual(0);
    await shot(phone, 'recipients-04-phone-sale-split');
    await phone.close();
  });
});
