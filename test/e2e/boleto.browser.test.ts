/**
 * "Nova cobrança" in Debian's chromium against a real server (the sandbox plays the cobv): a boleto issued from
 * the panel, then its sale's page with the linha digitável, its copy button and the PDF. Screenshots in
 * test-output/screenshots.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digitableLineText } from '../../panel/src/ui/format.js';
import { createAccount } from '../../src/accounts/accounts.js';
import { digitableLine } from '../../src/payment-standards/boleto-barcode.js';
import { boletoInput, spDay } from '../boletos/fixtures.js';
import { launch, shot } from '../support/browser.js';
import { login } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let browser: Browser;
let page: Page;
let accountId: number;
const EMAIL = 'boletos@example.com';
const PASSWORD = 'senha-dos-boletos-1';

beforeAll(async () => {
  server = await startServer();
  accountId = (
    await createAccount(server.runtime.platform.db, {
      name: 'Loja Boletos',
      email: EMAIL,
      password: PASSWORD,
    })
  ).id;
  browser = await launch();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  page = await context.newPage();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** "Nova cobrança" filled for a boleto: the method, the amount, the due date and the payer with their address. */
async function fillBoleto(f: { amount: string; description: string; dueDate: string; zipCode: string }) {
  await page.getByLabel('Boleto (com Pix)').check();
  await page.getByLabel('Valor (R$)').fill(f.amount);
  await page.getByLabel('Descrição').fill(f.description);
  await page.getByLabel('Vencimento').fill(f.dueDate);
  await page.getByLabel('Nome').fill('Maria Silva');
  await page.getByLabel('CPF ou CNPJ').fill('529.982.247-25');
  await page.getByLabel('E-mail').fill('maria@example.com');
  await page.getByLabel('Telefone').fill('+55 11 98765-4321');
  await page.getByLabel('Rua').fill('Rua das Flores');
  await page.getByLabel('Número').fill('100');
  await page.getByLabel('Bairro').fill('Centro');
  await page.getByLabel('Cidade').fill('São Paulo');
  await page.getByLabel('UF').selectOption('SP');
  await page.getByLabel('CEP').fill(f.zipCode);
}

describe('"Nova cobrança" issues a boleto', () => {
  it('from the sales page: due date, the payer and their address; the sale page shows the line, a copy button and the PDF', async () => {
    await page.goto(`${server.url}/`);
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Senha').fill(PASSWORD);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('heading', { name: 'Visão geral' }).waitFor();
    await page.getByRole('navigation', { name: 'Principal' }).getByRole('link', { name: 'Vendas' }).click();
    await page.getByRole('link', { name: 'Nova cobrança' }).click();
    await page.getByRole('heading', { level: 1, name: 'Nova cobrança' }).waitFor();

    // a CEP of 7 digits: the server's refusal is shown in Portuguese, naming the field
    await fillBoleto({
      amount: '1.234,56',
      description: 'Curso online',
      dueDate: spDay(5),
      zipCode: '01001-00X',
    });
    await page.getByRole('button', { name: 'Emitir boleto' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Dados inválidos: confira o CEP.');
    await shot(page, 'boleto-01-new-charge-refused');
    await page.getByLabel('CEP').fill('01001-000');
    await page.getByRole('button', { name: 'Emitir boleto' }).click();

    await page.getByRole('heading', { level: 1, name: /Venda/ }).waitFor();
    const [sale] = await server.runtime.platform.db.query<{
      id: number;
      uuid: string;
      amount: number;
      status: string;
      boleto: { digitableLine: string; barcode: string; dueDate: string; pdfUrl: string };
    }>('SELECT id, uuid, amount, status, boleto FROM sales WHERE account_id = $1', [accountId]);
    expect(sale).toMatchObject({ amount: 123456, status: 'PENDENTE' });
    expect(sale!.boleto.dueDate).toBe(spDay(5));
    expect(sale!.boleto.digitableLine).toBe(digitableLine(sale!.boleto.barcode));
    expect(new URL(page.url()).hash).toBe(`#/vendas/${sale!.uuid}`);

    // shown grouped as a bank prints it; copied as the 47 digits
    const line = page.getByText(digitableLineText(sale!.boleto.digitableLine), { exact: true });
    await line.waitFor();
    const copy = page.getByRole('button', { name: 'Copiar linha digitável' });
    await copy.click();
    await page.getByRole('button', { name: 'Copiado' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(sale!.boleto.digitableLine);
    const pdfLink = page.getByRole('link', { name: 'Abrir o PDF' });
    expect(await pdfLink.getAttribute('href')).toBe(sale!.boleto.pdfUrl);
    await shot(page, 'boleto-02-sale-page');

    // the link is the payer's: no session or key needed, an A4 PDF
    const pdf = await call('GET', `${server.url}${new URL(sale!.boleto.pdfUrl).pathname}`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.text.startsWith('%PDF-')).toBe(true);
  });

  it('a boleto paid with its discount: the sale page says what was paid, on which the fee and net were computed', async () => {
    const { cookie, csrf } = await login(server, EMAIL, PASSWORD);
    const key = await call<{ publicKey: string; privateKey: string }>(
      'POST',
      `${server.url}/api/credentials`,
      {
        headers: { cookie, 'x-csrf-token': csrf },
      },
    );
    const keys = { 'x-api-public-key': key.body.publicKey, 'x-api-private-key': key.body.privateKey };
    const made = await call<{ uuid: string }>('POST', `${server.url}/api/transactions`, {
      headers: keys,
      body: boletoInput({}, { discount: { amountCents: 1500, untilDate: spDay(3) } }),
    });
    expect(made.status, made.text).toBe(201);
    const paid = await call<{ paidAmount: number }>(
      'POST',
      `${server.url}/api/sandbox/sales/${made.body.uuid}/status`,
      { headers: keys, body: { status: 'PAGO' } },
    );
    expect(paid.body.paidAmount, paid.text).toBe(8500);
    await page.goto(`${server.url}/#/vendas/${made.body.uuid}`);
    await page
      .getByText(/R\$\s85,00 \(com o desconto; a taxa e o líquido são calculados sobre ele\)/)
      .waitFor();
    await shot(page, 'boleto-03-paid-with-discount');
  });

  it('with a fine, monthly interest, days payable after the due date and a discount, each refused beside its field', async () => {
    await page.goto(`${server.url}/#/cobrancas/nova`);
    await page.getByRole('heading', { level: 1, name: 'Nova cobrança' }).waitFor();
    await fillBoleto({
      amount: '200,00',
      description: 'Mensalidade',
      dueDate: spDay(10),
      zipCode: '01001-000',
    });
    await page.getByLabel('Multa (%)').fill('2,5');
    await page.getByLabel('Juros ao mês (%)').fill('1');
    await page.getByLabel('Dias para pagar em atraso').fill('15');
    // a discount of the whole amount: refused, and said beside the discount
    await page.getByLabel('Desconto (R$)').fill('200,00');
    await page.getByLabel('Desconto até').fill(spDay(5));
    await page.getByRole('button', { name: 'Emitir boleto' }).click();
    await page.getByText('Dados inválidos: confira o desconto (menor que o valor).').first().waitFor();
    expect(await page.getByLabel('Desconto (R$)').getAttribute('aria-invalid')).toBe('true');
    await shot(page, 'boleto-04-terms-refused');
    await page.getByLabel('Desconto (R$)').fill('10,00');
    await page.getByRole('button', { name: 'Emitir boleto' }).click();
    await page.getByRole('heading', { level: 1, name: /Venda/ }).waitFor();
    const uuid = new URL(page.url()).hash.replace('#/vendas/', '');
    const [terms] = await server.runtime.platform.db.query(
      `SELECT b.fine_bp, b.monthly_interest_bp, b.days_after_due, b.discount_cents,
              to_char(b.discount_until, 'YYYY-MM-DD') AS discount_until
         FROM boletos b JOIN sales s ON s.id = b.sale_id WHERE s.uuid = $1`,
      [uuid],
    );
    expect(terms).toEqual({
      fine_bp: 250,
      monthly_interest_bp: 100,
      days_after_due: 15,
      discount_cents: 1000,
      discount_until: spDay(5),
    });
  });
});
