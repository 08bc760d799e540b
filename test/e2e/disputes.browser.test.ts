/**
 * "Contestações" in the panel, in Debian's chromium: the list with each dispute's deadline countdown, a
 * dispute's detail, an answer with a file and a text, and accepting another; a sale's page and its disputes.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide, disputeMerchant, openDispute, paidSale } from '../disputes/fixtures.js';
import { seriousViolations } from '../support/axe.js';
import { launch, shot } from '../support/browser.js';
import type { TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let browser: Browser;
let page: Page;
let m: TestMerchant;

beforeAll(async () => {
  server = await startServer({ workers: false });
  m = await disputeMerchant(server);
  browser = await launch();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('Contestações', () => {
  it('lists disputes with their deadline, answers one with a file and a text, accepts another', async () => {
    const first = await paidSale(server, m, 10000);
    const second = await paidSale(server, m, 25000);
    const answered = (
      await openDispute(server, m, first.uuid, { kind: 'med', reason: 'Pagador relata golpe' })
    ).body;
    await openDispute(server, m, second.uuid, { kind: 'med' });

    await page.goto(`${server.url}/`);
    await page.getByLabel('E-mail').fill(m.email);
    await page.getByLabel('Senha').fill(m.password);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page
      .getByRole('navigation', { name: 'Principal' })
      .getByRole('link', { name: 'Contestações' })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Contestações' }).waitFor();
    const table = page.getByRole('table', { name: 'Contestações' });
    await table.getByRole('row').nth(2).waitFor();
    expect(await table.getByText(/6 dias e 23 h restantes/).count()).toBe(2);
    await shot(page, 'disputes-01-list');

    await page.getByRole('button', { name: 'Detalhes da contestação de R$ 100,00' }).click();
    const card = page.getByRole('region', { name: 'Contestação de R$ 100,00' });
    await card.getByText('Pagador relata golpe').waitFor();
    // each dispute has its address (its e-mail links to it): opened from it, the same dispute is shown
    expect(new URL(page.url()).hash).toBe(`#/contestacoes/${answered.id}`);
    await page.reload();
    await card.getByText('Pagador relata golpe').waitFor();
    await card.getByLabel(/Provas/).setInputFiles({
      name: 'comprovante.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from('%PDF-1.7\nentrega confirmada\n'),
    });
    await card.getByLabel(/Sua resposta/).fill('O cliente recebeu o produto.');
    await shot(page, 'disputes-02-answer');
    expect(await seriousViolations(page)).toEqual([]);
    await card.getByRole('button', { name: 'Enviar resposta' }).click();
    await card.getByText('Em análise').waitFor();
    await card
      .getByRole('list', { name: 'Provas enviadas' })
      .getByText(/comprovante\.pdf/)
      .waitFor();
    await shot(page, 'disputes-03-under-review');

    await page.getByRole('button', { name: 'Detalhes da contestação de R$ 250,00' }).click();
    const other = page.getByRole('region', { name: 'Contestação de R$ 250,00' });
    // it cannot be undone: asked first, dismissed it changes nothing
    page.once('dialog', (d) => void d.dismiss());
    await other.getByRole('button', { name: 'Aceitar contestação' }).click();
    expect(await other.getByText('Aceita', { exact: true }).count()).toBe(0);
    page.once('dialog', (d) => {
      expect(d.message()).toBe(
        'Aceitar esta contestação? Ela é encerrada e o valor contestado não volta ao saldo.',
      );
      void d.accept();
    });
    await other.getByRole('button', { name: 'Aceitar contestação' }).click();
    await other.getByText('Aceita', { exact: true }).waitFor();
    await table.getByRole('cell', { name: 'Aceita' }).waitFor();
    await shot(page, 'disputes-04-accepted');
    // its sale's page says what the accepted dispute gave back, as accepted (not lost)
    await page.goto(`${server.url}/#/vendas/${second.uuid}`);
    await page.getByRole('heading', { level: 1, name: /Venda \d+/ }).waitFor();
    await page
      .getByRole('table', { name: 'Estornos desta venda' })
      .getByText('Concluído (contestação aceita)')
      .waitFor();
    expect(await page.getByText(/por contestação aceita\)/).count()).toBe(1);

    const [row] = await server.runtime.platform.db.query<{ status: string; n: number }>(
      `SELECT d.status, (SELECT count(*)::int FROM dispute_evidence e WHERE e.dispute_id = d.id) AS n
         FROM disputes d WHERE d.uuid = $1`,
      [answered.id],
    );
    expect(row).toEqual({ status: 'under_review', n: 1 });
  });

  it('a sale\'s page lists its disputes, and says what of "Estornado" a lost one gave back', async () => {
    const sale = await paidSale(server, m, 10000);
    const refund = await call('POST', `${server.url}/api/transactions/${sale.uuid}/refund`, {
      headers: m.keys,
      body: { amountCents: 2000 },
    });
    expect(refund.status, refund.text).toBeLessThan(300);
    const dispute = await openDispute(server, m, sale.uuid, { kind: 'med', amountCents: 5000 });
    expect(dispute.status, dispute.text).toBe(201);
    expect((await decide(server, m, dispute.body.id, 'lost')).status).toBe(200);

    await page.goto(`${server.url}/#/vendas/${sale.uuid}`);
    await page.getByRole('heading', { level: 1, name: /Venda \d+/ }).waitFor();
    await page.getByText('R$ 70,00 (R$ 50,00 por contestação perdida)').waitFor();
    const disputes = page.getByRole('table', { name: 'Contestações desta venda' });
    await disputes.getByRole('cell', { name: 'Perdida' }).waitFor();
    expect(await disputes.getByRole('cell', { name: 'R$ 50,00' }).count()).toBe(1);
    // each dispute of the sale links to its own page
    expect(await disputes.getByRole('link').first().getAttribute('href')).toBe(
      `#/contestacoes/${dispute.body.id}`,
    );
    const refunds = page.getByRole('table', { name: 'Estornos desta venda' });
    await refunds.getByText('R$ 20,00').first().waitFor();
    // the MED's devolução is among the refunds, and says why: the merchant did not ask for it
    const lostRow = refunds.getByRole('row').filter({ hasText: 'R$ 50,00' });
    await lostRow.getByText('Concluído (contestação perdida)').waitFor();
    // paid: its Pix code is no use to anyone any more, and is not shown
    expect(await page.getByText('PIX copia e cola').count()).toBe(0);
    await shot(page, 'disputes-05-sale-page');
    expect(await seriousViolations(page)).toEqual([]);
  });
});
