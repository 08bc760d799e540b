/**
 * A shop signs itself up (SIGNUP=on) in Debian's chromium: the form (a refused CPF marks its field with the
 * API's message), the account in review with its banner, documents sent from the Cadastro page until it says the
 * account waits for an operator, a test charge made and paid in the sandbox while in review; an operator's
 * approval lifts the banner.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../support/axe.js';
import { launch, shot } from '../support/browser.js';
import { call } from '../support/http.js';
import { createOperator, giveFeePlan } from '../support/operators.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let browser: Browser;
let page: Page;

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

beforeAll(async () => {
  server = await startServer({ env: { SIGNUP: 'on' }, workers: false });
  browser = await launch();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('self sign-up in the panel', () => {
  it('signs up, sends a document, and is approved', async () => {
    await page.goto(`${server.url}/`);
    await page.getByRole('link', { name: 'Criar uma conta' }).click();
    await page.getByRole('heading', { name: 'Criar conta' }).waitFor();
    const email = `loja-${Date.now()}@example.com`;
    for (const [labelText, value] of [
      ['Nome da loja', 'Empório Central'],
      ['Razão social ou nome completo', 'Empório Central Ltda'],
      ['CPF ou CNPJ', '11.222.333/0001-81'],
      ['E-mail', email],
      ['Senha (mínimo de 8 caracteres)', 'senha-do-emporio'],
      ['Telefone', '(81) 98765-4321'],
      ['Rua', 'Rua da Aurora'],
      ['Número', '10'],
      ['Bairro', 'Boa Vista'],
      ['Cidade', 'Recife'],
      ['UF', 'PE'],
      ['CEP', '50050-000'],
    ]) {
      await page.getByLabel(labelText, { exact: true }).fill(value);
    }
    await shot(page, 'signup-01-form');
    expect(await seriousViolations(page)).toEqual([]);

    // a CPF with wrong check digits: the API's refusal marks the field, says why beside it, and focuses it
    const documentField = page.getByLabel('CPF ou CNPJ', { exact: true });
    await documentField.fill('123.456.789-00');
    await page.getByRole('button', { name: 'Criar conta' }).click();
    await page.getByRole('alert').filter({ hasText: 'Dados inválidos: confira o CPF/CNPJ.' }).waitFor();
    expect(await documentField.getAttribute('aria-invalid')).toBe('true');
    const describedBy = await documentField.getAttribute('aria-describedby');
    expect(await page.locator(`#${describedBy}`).textContent()).toBe(
      'CPF ou CNPJ inválido: confira os dígitos.',
    );
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('su-document');
    expect(await page.getByLabel('E-mail', { exact: true }).getAttribute('aria-invalid')).toBeNull();
    await shot(page, 'signup-01b-invalid-document');
    expect(await seriousViolations(page)).toEqual([]);
    await documentField.fill('11.222.333/0001-81');
    await page.getByRole('button', { name: 'Criar conta' }).click();

    await page.getByRole('heading', { level: 1, name: 'Cadastro' }).waitFor();
    await page.getByText('Situação da conta: em análise, faltam documentos.').waitFor();
    await page.getByText(/Ainda faltam 5 documentos: .* e Contrato social \(empresas\)\./).waitFor();
    await page.getByText(/o modo de teste funciona: em Vendas › Nova cobrança/).waitFor();
    await page.getByText(/Faltam: .*Contrato social/).waitFor();
    await page.getByLabel('Documento', { exact: true }).selectOption('id_front');
    await page.getByLabel('Arquivo (PDF, PNG ou JPEG, até 10 MB)').setInputFiles({
      name: 'rg-frente.png',
      mimeType: 'image/png',
      buffer: PNG,
    });
    await page.getByRole('button', { name: 'Enviar' }).click();
    await page.getByText('Documento de identidade (frente) enviado.').waitFor();
    await shot(page, 'signup-02-documents');
    expect(await seriousViolations(page)).toEqual([]);

    // every other page says the account is in review, and what it still has to send
    const nav = page.getByRole('navigation', { name: 'Principal' });
    await nav.getByRole('link', { name: 'Vendas' }).click();
    await page.getByText(/Sua conta está em análise e ainda faltam 4 documentos/).waitFor();

    // the rest of the documents: Cadastro then says the account waits for an operator, and what comes next
    await nav.getByRole('link', { name: 'Cadastro' }).click();
    for (const [kind, sentText] of [
      ['id_back', 'Documento de identidade (verso) enviado.'],
      ['selfie', 'Selfie segurando o documento enviado.'],
      ['proof_of_address', 'Comprovante de endereço enviado.'],
      ['company_contract', 'Contrato social (empresas) enviado.'],
    ] as const) {
      await page.getByLabel('Documento', { exact: true }).selectOption(kind);
      await page.getByLabel('Arquivo (PDF, PNG ou JPEG, até 10 MB)').setInputFiles({
        name: `${kind}.png`,
        mimeType: 'image/png',
        buffer: PNG,
      });
      await page.getByRole('button', { name: 'Enviar' }).click();
      await page.getByText(sentText).waitFor();
    }
    await page.getByText('Situação da conta: aguardando análise.').waitFor();
    expect(await page.getByText(/envie os documentos/i).count()).toBe(0);
    await page.getByText(/Quando a conta for aprovada, você recebe um e-mail/).waitFor();
    await shot(page, 'signup-03-waiting-for-review');
    expect(await seriousViolations(page)).toEqual([]);
    await nav.getByRole('link', { name: 'Vendas' }).click();
    await page.getByText(/todos os documentos foram enviados e ela aguarda um operador/).waitFor();

    // while in review the test mode works as promised: a test charge, paid by the sandbox, no live money
    await page.getByRole('link', { name: 'criar uma cobrança de teste' }).click();
    await page.getByRole('heading', { level: 1, name: 'Nova cobrança' }).waitFor();
    await page.getByText(/Cobrança de teste\./).waitFor();
    await page.getByRole('radio', { name: 'PIX', exact: true }).check();
    await page.getByLabel('Valor (R$)').fill('25,00');
    await page.getByLabel('Descrição').fill('Pedido de teste');
    await page.getByLabel('Nome', { exact: true }).fill('Cliente Teste');
    await page.getByLabel('CPF ou CNPJ', { exact: true }).fill('529.982.247-25');
    await page.getByLabel('E-mail', { exact: true }).fill('cliente@example.com');
    await page.getByLabel('Telefone', { exact: true }).fill('+55 81 98765-4321');
    await shot(page, 'signup-04-test-charge');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Criar cobrança de teste' }).click();
    await page.getByRole('button', { name: 'Simular pagamento' }).click();
    await page.getByText('Pagamento simulado: a venda está paga.').waitFor();
    const [sale] = await server.runtime.platform.db.query<{ status: string; account_status: string }>(
      `SELECT s.status, a.status AS account_status FROM sales s JOIN accounts a ON a.id = s.account_id
        WHERE a.email = $1`,
      [email],
    );
    expect(sale).toEqual({ status: 'PAGO', account_status: 'pending_review' });

    const admin = await createOperator(server, 'admin');
    const [row] = await server.runtime.platform.db.query<{ id: string }>(
      'SELECT id FROM accounts WHERE email = $1',
      [email],
    );
    await giveFeePlan(server, admin, row!.id); // approval needs a fee plan
    const approved = await call('POST', `${server.url}/api/ops/accounts/${row!.id}/approve`, {
      headers: admin.ops,
      body: {},
    });
    expect(approved.status).toBe(200);
    await page.reload();
    await nav.getByRole('link', { name: 'Vendas' }).click();
    await page.getByRole('heading', { level: 1, name: 'Vendas' }).waitFor();
    expect(await page.getByText('Sua conta está em análise').count()).toBe(0);
  });
});
