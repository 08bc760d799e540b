/**
 * A shop signs itself up (SIGNUP=on) in Debian's chromium: the form, the account in review with its banner,
 * documents sent from the Cadastro page; an operator's approval lifts the banner.
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
    await page.getByRole('button', { name: 'Criar conta' }).click();

    await page.getByRole('heading', { level: 1, name: 'Cadastro' }).waitFor();
    await page.getByText(/Situação da conta: Em análise/).waitFor();
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

    // every other page says the account is in review
    await page.getByRole('navigation', { name: 'Principal' }).getByRole('link', { name: 'Vendas' }).click();
    await page.getByText('Sua conta está em análise').waitFor();

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
    await page.getByRole('heading', { level: 1, name: 'Vendas' }).waitFor();
    expect(await page.getByText('Sua conta está em análise').count()).toBe(0);
  });
});
