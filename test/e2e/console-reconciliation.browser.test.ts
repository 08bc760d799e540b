/**
 * A finance operator reconciles with the PSP from the console, in Debian's chromium: asks for a period, sees the
 * run the worker made of it (a lost webhook credited, an unknown Pix kept), and resolves the discrepancy with a
 * note. Axe-clean at desktop and phone sizes, screenshots kept; a support operator is not offered the page.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevPsp } from '../../src/devpsp/server.js';
import { pixCharge } from '../sales/fixtures.js';
import { seriousViolations } from '../support/axe.js';
import { launch, shot } from '../support/browser.js';
import { createMerchant } from '../support/factories.js';
import { createOperator, signInToConsole, type TestOperator } from '../support/operators.js';
import { RECEIVER_KEY, startReconcilingGateway } from '../support/psp.js';
import type { TestServer } from '../support/server.js';

let psp: DevPsp;
let server: TestServer;
let browser: Browser;
let finance: TestOperator;

beforeAll(async () => {
  ({ psp, server } = await startReconcilingGateway());
  browser = await launch();
  finance = await createOperator(server, 'finance');
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await psp?.close();
});

async function clean(page: Page, name: string): Promise<void> {
  await shot(page, name);
  expect(await seriousViolations(page), name).toEqual([]);
}

/** A São Paulo day, `offset` days before today, as YYYY-MM-DD (what a date field takes). */
const day = (offset: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(
    new Date(Date.now() - offset * 86_400_000),
  );

describe('Conciliação in the console', () => {
  it('reconciles a period and resolves what did not match', async () => {
    const merchant = await createMerchant(server);
    const sale = await pixCharge(server, merchant, 4321);
    await psp.pay(sale.externalTransactionId, { times: 0 });
    await psp.receiveWithoutCharge(RECEIVER_KEY, 777);

    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signInToConsole(page, server, finance);
    await page
      .getByRole('navigation', { name: 'Principal' })
      .getByRole('link', { name: 'Conciliação' })
      .click();
    await page.getByRole('heading', { name: 'Conciliação', level: 1 }).waitFor();
    await page.getByLabel('De').fill(day(1));
    await page.getByLabel('Até (inclusive)').fill(day(0));
    await page.getByRole('button', { name: 'Conciliar' }).click();
    const asked = page.getByRole('dialog', { name: 'Conciliar este período?' });
    await asked.getByText('é creditado agora').waitFor();
    await asked.getByRole('button', { name: 'Confirmar' }).click();
    await page
      .getByRole('status')
      .getByText(/Conciliação de .* pedida/)
      .waitFor();
    const runs = page.getByRole('table', { name: 'Execuções da conciliação' });
    // the worker runs it; the page follows it until it is done
    await runs.getByRole('cell', { name: 'Concluída' }).first().waitFor();
    const row = await runs.getByRole('row').nth(1).textContent();
    expect(row).toContain(`Pedida por ${finance.email}`);
    expect(row).toContain(
      '2 Pix recebidos · 1 conferido · 1 creditado agora · 0 estornados agora · 1 divergência',
    );
    const found = page.getByRole('table', { name: 'Divergências' });
    await found.getByRole('cell', { name: 'Pix sem cobrança do gateway', exact: true }).waitFor();
    await clean(page, 'console-reconciliation-01-desktop');
    await page.setViewportSize({ width: 390, height: 844 });
    await clean(page, 'console-reconciliation-01-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(
      (
        await server.runtime.platform.db.query<{ status: string }>('SELECT status FROM sales WHERE id = $1', [
          sale.id,
        ])
      )[0]!.status,
    ).toBe('PAGO');

    await page
      .getByRole('button', { name: 'Resolver a divergência de R$ 7,77 (Pix sem cobrança do gateway)' })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Resolver a divergência?' });
    // nothing to send without a note of what was done
    expect(await dialog.getByRole('button', { name: 'Confirmar' }).isDisabled()).toBe(true);
    await dialog.getByLabel('O que foi feito').fill('Devolvido ao pagador pelo PSP, chamado 81');
    await clean(page, 'console-reconciliation-02-resolve');
    await dialog.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByRole('status').getByText('Divergência de R$ 7,77 resolvida.').waitFor();
    await page.getByText('Nenhuma divergência em aberto.').waitFor();
    await page.getByLabel('Mostrar resolvidas').check();
    await page
      .getByRole('table', { name: 'Divergências' })
      .getByText('Devolvido ao pagador pelo PSP, chamado 81')
      .waitFor();
    await page.context().close();
  });

  it('a support operator is not offered it, and is told so if they open it', async () => {
    const support = await createOperator(server, 'support');
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signInToConsole(page, server, support);
    expect(
      await page
        .getByRole('navigation', { name: 'Principal' })
        .getByRole('link', { name: 'Conciliação' })
        .count(),
    ).toBe(0);
    await page.goto(`${server.url}/ops#/conciliacao`);
    await page.getByText('não dá acesso a esta página').waitFor();
    await page.context().close();
  });
});
