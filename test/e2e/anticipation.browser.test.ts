/**
 * "Antecipar" in the panel's Agenda de recebíveis, in Debian's chromium: the merchant types an amount, sees the
 * simulation (installments taken, fee, what it receives now) and only then confirms; the anticipation is paid.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anticipatingMerchant, buckets, cardSale, plusDays } from '../anticipations/fixtures.js';
import { seriousViolations } from '../support/axe.js';
import { launch, shot } from '../support/browser.js';
import { createOperator } from '../support/operators.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  server = await startServer({
    workers: false,
    env: { CARD_SETTLEMENT_DAYS: '30', ANTICIPATION_AUTO_APPROVE: 'on' },
  });
  browser = await launch();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const brDate = (iso: string) => `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`;

describe('Agenda de recebíveis: Antecipar', () => {
  it('shows the simulation before confirming, then pays the anticipation', async () => {
    const m = await anticipatingMerchant(server, await createOperator(server, 'finance'));
    await cardSale(server, m, 30000, 3);

    await page.goto(`${server.url}/`);
    await page.getByLabel('E-mail').fill(m.email);
    await page.getByLabel('Senha').fill(m.password);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page
      .getByRole('navigation', { name: 'Principal' })
      .getByRole('link', { name: 'Agenda de recebíveis' })
      .click();
    await page.getByRole('heading', { level: 2, name: 'Antecipar' }).waitFor();
    await page.getByLabel('Valor a antecipar (R$)').fill('150,00');
    await page.getByRole('button', { name: 'Simular antecipação' }).click();

    const simulation = page.getByRole('definition').filter({ hasText: 'R$' });
    await page.getByLabel('Simulação da antecipação').waitFor();
    const texts = (await simulation.allInnerTexts()).map((t) => t.replace(/\s/g, ' '));
    expect(texts).toEqual(['R$ 200,00', 'R$ 9,00', 'R$ 191,00']);
    const taken = page.getByRole('list', { name: 'Parcelas que serão antecipadas' });
    const items = (await taken.getByRole('listitem').allInnerTexts()).map((t) => t.replace(/\s/g, ' '));
    expect(items).toEqual([`${brDate(plusDays(30))}: R$ 100,00`, `${brDate(plusDays(60))}: R$ 100,00`]);
    // nothing has moved yet: the simulation holds nothing
    expect(await buckets(server.runtime.platform.db, m.accountId)).toMatchObject({ available: 0 });
    await shot(page, 'anticipation-01-simulation');
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Confirmar antecipação' }).click();
    await page
      .getByRole('status')
      .getByText(/Antecipação paga/)
      .waitFor();
    // the agenda, read again: the two days anticipated are available, the third still to come
    const agenda = page.getByRole('table', { name: 'Agenda de recebíveis' });
    await expect
      .poll(async () => (await agenda.innerText()).replace(/\s+/g, ' '))
      .toContain(`${brDate(plusDays(60))} R$ 100,00 já disponível`);
    const days = (await agenda.getByRole('row').allInnerTexts()).map((t) => t.replace(/\s+/g, ' '));
    expect(days[1]).toContain(`${brDate(plusDays(30))} R$ 100,00 já disponível`);
    expect(days[3]).toMatch(new RegExp(`^${brDate(plusDays(90))} R\\$ 100,00 parcela 3/3`));
    expect((await page.getByText('A receber no período').innerText()).replace(/\s+/g, ' ')).toContain(
      'A receber no período: R$ 100,00.',
    );
    await shot(page, 'anticipation-02-paid');
    expect(await buckets(server.runtime.platform.db, m.accountId)).toMatchObject({
      available: 19100,
      receivable: 10000,
    });
    const [row] = await server.runtime.platform.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM anticipations WHERE account_id = $1 AND status = 'paid'",
      [m.accountId],
    );
    expect(row!.n).toBe(1);
  });
});
