/**
 * A shop owner's first days, walked as a new user would in Debian's chromium against a real server: signs up
 * and reads that the account is in review; an operator approves it; makes a payment link; one payer pays it by
 * card, another by Pix (the owner's "Simular pagamento" of the sandbox pays the Pix, and the payer's page turns
 * by itself); refunds part of a sale; asks for a withdrawal that the sandbox completes by itself; sells a
 * subscription without code in Assinaturas, and the customer pays it from the page the e-mail (a real SMTP
 * server) links to. Every page axe-clean; screenshots in test-output/screenshots (journey-owner-*): the panel at
 * 1280 px and at 390 px, the payers' pages at 390 px.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardEnding } from '../cards/cards.js';
import { seriousViolations } from '../support/axe.js';
import { launch, shot } from '../support/browser.js';
import { call } from '../support/http.js';
import { Mailbox } from '../support/mailbox.js';
import { createOperator, giveFeePlan } from '../support/operators.js';
import { startServer, type TestServer } from '../support/server.js';

let mailbox: Mailbox;
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  mailbox = await Mailbox.start();
  server = await startServer({
    env: { SIGNUP: 'on', SMTP_URL: mailbox.url, SANDBOX_CASHOUT_DELAY_MS: '500' },
  });
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await mailbox?.stop();
});

const DESK = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

/** A screenshot and axe-core at the page's own width. */
async function clean(page: Page, name: string): Promise<void> {
  await shot(page, name);
  expect(await seriousViolations(page), name).toEqual([]);
}

/** The owner's page at 1280 px, then the same page on a phone (390 px), back to 1280 px. */
async function deskAndPhone(page: Page, name: string): Promise<void> {
  await clean(page, `${name}-desktop`);
  await page.setViewportSize(PHONE);
  await clean(page, `${name}-phone`);
  expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
  await page.setViewportSize(DESK);
}

async function phonePage(): Promise<Page> {
  return (
    await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true, locale: 'pt-BR' })
  ).newPage();
}

const OWNER = {
  shop: 'Padaria Pão Quente',
  email: `padaria-${Date.now()}@example.com`,
  password: 'senha-da-padaria',
};
const year2 = String(new Date().getUTCFullYear() + 2).slice(-2);

describe("a shop owner's journey", () => {
  it('sign-up → review → approved → link paid by card and Pix → partial refund → withdrawal completed → subscription paid', async () => {
    const owner = await (await browser.newContext({ viewport: DESK, locale: 'pt-BR' })).newPage();
    const go = async (label: string) => {
      await owner.getByRole('navigation', { name: 'Principal' }).getByRole('link', { name: label }).click();
      await owner.getByRole('heading', { level: 1, name: label }).waitFor();
    };

    // sign-up
    await owner.goto(`${server.url}/`);
    await owner.getByRole('link', { name: 'Criar uma conta' }).click();
    await owner.getByRole('heading', { name: 'Criar conta' }).waitFor();
    for (const [labelText, value] of [
      ['Nome da loja', OWNER.shop],
      ['Razão social ou nome completo', 'Padaria Pão Quente Ltda'],
      ['CPF ou CNPJ', '11.222.333/0001-81'],
      ['E-mail', OWNER.email],
      ['Senha (mínimo de 8 caracteres)', OWNER.password],
      ['Telefone', '(81) 98765-4321'],
      ['Rua', 'Rua da Aurora'],
      ['Número', '10'],
      ['Bairro', 'Boa Vista'],
      ['Cidade', 'Recife'],
      ['UF', 'PE'],
      ['CEP', '50050-000'],
    ]) {
      await owner.getByLabel(labelText, { exact: true }).fill(value);
    }
    await deskAndPhone(owner, 'journey-owner-01-signup');
    await owner.getByRole('button', { name: 'Criar conta' }).click();

    // the panel says the account is in review, on Cadastro and on every other page
    await owner.getByRole('heading', { level: 1, name: 'Cadastro' }).waitFor();
    await owner.getByText(/Situação da conta: em análise/i).waitFor();
    await deskAndPhone(owner, 'journey-owner-02-in-review');
    await go('Vendas');
    await owner.getByText('Sua conta está em análise').waitFor();

    // an operator approves it, with a fee plan
    const admin = await createOperator(server, 'admin');
    const [row] = await server.runtime.platform.db.query<{ id: string }>(
      'SELECT id FROM accounts WHERE email = $1',
      [OWNER.email],
    );
    await giveFeePlan(server, admin, row!.id); // Pix 0,99 %, card 3,49 % à vista
    const approved = await call('POST', `${server.url}/api/ops/accounts/${row!.id}/approve`, {
      headers: admin.ops,
      body: {},
    });
    expect(approved.status, approved.text).toBe(200);
    await owner.reload();
    await owner.getByRole('heading', { level: 1, name: 'Vendas' }).waitFor();
    expect(await owner.getByText('Sua conta está em análise').count()).toBe(0);

    // a payment link, Pix and card
    await go('Links de pagamento');
    await owner.getByLabel('Título (o que o comprador vê)').fill('Cesta de café da manhã');
    await owner.getByLabel('Valor (R$)').fill('300,00');
    await owner.getByLabel('Cartão de crédito').check();
    await owner.getByRole('button', { name: 'Criar link' }).click();
    const linkCard = owner.getByRole('region', { name: 'Link: Cesta de café da manhã' });
    const url = (await linkCard.getByTestId('link-url').textContent())!;
    expect(url).toMatch(/\/pay\/[A-Za-z0-9_-]{16}$/);
    await deskAndPhone(owner, 'journey-owner-03-link');
    const payPath = new URL(url).pathname;

    // a payer pays it by card, on a phone
    const cardPayer = await phonePage();
    await cardPayer.goto(`${server.url}${payPath}`);
    await cardPayer.getByRole('heading', { level: 1, name: 'Cesta de café da manhã' }).waitFor();
    await cardPayer.getByRole('radio', { name: 'Cartão de crédito' }).check();
    await cardPayer.getByLabel('Nome completo').fill('Bruno Alves');
    await cardPayer.getByLabel('E-mail').fill('bruno@example.com');
    await cardPayer.getByLabel('CPF ou CNPJ').pressSequentially('11144477735');
    await cardPayer.getByLabel('Número do cartão').pressSequentially(cardEnding('1'));
    await cardPayer.getByText('Bandeira: Visa').waitFor();
    await cardPayer.getByLabel('Nome impresso no cartão').fill('Bruno Alves');
    await cardPayer.getByLabel('Validade (MM/AA)').pressSequentially(`12${year2}`);
    await cardPayer.getByLabel('Código de segurança (CVV)').fill('123');
    await clean(cardPayer, 'journey-owner-04-payer-card-form');
    await cardPayer.getByRole('button', { name: 'Pagar com cartão' }).click();
    await cardPayer.getByRole('heading', { level: 1, name: 'Pagamento confirmado' }).waitFor();
    await cardPayer.getByText('Recebemos seu pagamento de R$ 300,00. Obrigado!').waitFor();
    await clean(cardPayer, 'journey-owner-05-payer-card-paid');
    await cardPayer.context().close();

    // another payer chooses Pix; the owner, in the sandbox, simulates the payment from the sale's page
    const pixPayer = await phonePage();
    await pixPayer.goto(`${server.url}${payPath}`);
    await pixPayer.getByRole('heading', { level: 1, name: 'Cesta de café da manhã' }).waitFor();
    await pixPayer.getByRole('radio', { name: 'Pix' }).check();
    await pixPayer.getByLabel('Nome completo').fill('Carla Dias');
    await pixPayer.getByLabel('E-mail').fill('carla@example.com');
    await pixPayer.getByLabel('CPF ou CNPJ').pressSequentially('52998224725');
    await pixPayer.getByText('CPF válido.').waitFor();
    const answered = pixPayer.waitForResponse((r) => r.url().endsWith(`/api/public${payPath}`));
    await pixPayer.getByRole('button', { name: 'Pagar com Pix' }).click();
    const pix = (await (await answered).json()) as { saleId: string };
    await pixPayer.getByRole('heading', { name: 'Pague com Pix' }).waitFor();
    await pixPayer.getByRole('img', { name: 'QR Code do Pix' }).waitFor();
    await clean(pixPayer, 'journey-owner-06-payer-pix');

    await go('Vendas');
    const sales = owner.getByRole('table', { name: 'Vendas' });
    await sales.getByRole('cell', { name: 'Carla Dias' }).waitFor();
    await sales.getByRole('cell', { name: 'Bruno Alves' }).waitFor();
    await deskAndPhone(owner, 'journey-owner-07-sales');
    await owner.goto(`${server.url}/#/vendas/${pix.saleId}`);
    await owner.getByRole('heading', { level: 1, name: /^Venda \d+$/ }).waitFor();
    await owner.getByRole('button', { name: 'Simular pagamento' }).click();
    await owner.getByText('Pagamento simulado: a venda está paga.').waitFor();
    await pixPayer.getByRole('heading', { level: 1, name: 'Pagamento confirmado' }).waitFor();
    await pixPayer.getByText('Recebemos seu pagamento de R$ 300,00. Obrigado!').waitFor();
    await clean(pixPayer, 'journey-owner-08-payer-pix-paid');
    await pixPayer.context().close();

    // part of the Pix sale refunded
    await owner.getByRole('button', { name: 'Estornar' }).click();
    await owner.getByLabel('Valor a estornar (R$)').fill('50,00');
    await owner.getByRole('button', { name: 'Confirmar estorno de R$ 50,00' }).click();
    await owner.getByText('Estorno de R$ 50,00 feito: o valor foi devolvido ao comprador.').waitFor();
    const detail = owner.getByRole('region', { name: /^Venda \d+$/ });
    expect(await detail.textContent()).toMatch(/EstornadoR\$\s50,00/);
    await deskAndPhone(owner, 'journey-owner-09-refund');

    // a withdrawal, which the sandbox completes by itself
    await go('Saques');
    // the minimum and the fee are said before anything is typed (this plan takes no withdrawal fee)
    await expect
      .poll(async () => (await owner.getByTestId('withdrawal-terms').textContent())?.replace(/\s/g, ' '))
      .toBe('Valor mínimo R$ 100,00; sem taxa.');
    await owner.getByLabel('Valor (R$)').fill('150,00');
    await owner.getByLabel('Tipo de chave').selectOption('CPF');
    await owner.getByLabel('Chave PIX').pressSequentially('52998224725');
    await owner.getByLabel('Confirme com sua senha').fill(OWNER.password);
    await deskAndPhone(owner, 'journey-owner-10-withdrawal-form');
    await owner.getByRole('button', { name: 'Solicitar saque' }).click();
    await expect.poll(() => owner.getByRole('status').first().textContent()).toContain('solicitado');
    const withdrawals = owner.getByRole('table', { name: 'Saques' });
    await expect
      .poll(async () => (await withdrawals.getByRole('row').nth(1).textContent()) ?? '', { timeout: 20_000 })
      .toContain('Concluído');
    await deskAndPhone(owner, 'journey-owner-11-withdrawal-completed');

    // a subscription sold without code, its first payment on the page the customer is e-mailed
    await go('Assinaturas');
    await owner.getByLabel('Nome do plano').fill('Pão do mês');
    await owner.getByLabel('Valor por período (R$)').fill('89,90');
    await owner.getByLabel('Cobrança', { exact: true }).selectOption('month');
    await owner.getByRole('checkbox', { name: 'PIX', exact: true }).check();
    await owner.getByRole('button', { name: 'Criar plano' }).click();
    await owner
      .getByRole('table', { name: 'Planos' })
      .getByRole('row', { name: /Pão do mês/ })
      .waitFor();
    const customerEmail = `cliente-${Date.now()}@example.com`;
    const newSubscription = owner.getByRole('region', { name: 'Nova assinatura' });
    await newSubscription.waitFor();
    await owner.getByLabel('Cliente', { exact: true }).selectOption('new');
    await owner.getByLabel('Nome do cliente').fill('Diana Rocha');
    await owner.getByLabel('E-mail do cliente').fill(customerEmail);
    await owner.getByLabel('CPF ou CNPJ do cliente').fill('529.982.247-25');
    await owner.getByRole('radio', { name: 'Cartão de crédito' }).check();
    await owner
      .getByLabel('Cartão', { exact: true })
      .selectOption({ label: 'Pedir o cartão ao cliente por e-mail' });
    await deskAndPhone(owner, 'journey-owner-12-new-subscription');
    await owner.getByRole('button', { name: 'Criar assinatura' }).click();
    await owner.getByText(/Diana Rocha recebe por e-mail a página da assinatura/).waitFor();
    const subRow = owner
      .getByRole('table', { name: 'Assinaturas' })
      .getByRole('row', { name: /Diana Rocha/ });
    expect(await subRow.textContent()).toContain('Aguardando o cartão do cliente');

    const mail = await mailbox.waitFor(customerEmail, /Pão do mês: cadastre o cartão/);
    expect(mail.subject.startsWith('[Teste] ')).toBe(true);
    const link = /(http\S+\/billing\/[A-Za-z0-9_-]{32})/.exec(mail.text)?.[1];
    expect(link, mail.text).toBeDefined();
    const customer = await phonePage();
    await customer.goto(`${server.url}${new URL(link!).pathname}`);
    await customer.getByRole('heading', { name: 'Pão do mês' }).waitFor();
    await customer
      .getByRole('complementary', { name: 'Modo de teste' })
      .getByText('Modo de teste.')
      .waitFor();
    await customer.getByLabel('Número do cartão').fill(cardEnding('1'));
    await customer.getByLabel('Nome impresso no cartão').fill('DIANA ROCHA');
    await customer.getByLabel('Validade (MM/AA)').fill(`12${year2}`);
    await customer.getByLabel('Código de segurança (CVV)').fill('123');
    await clean(customer, 'journey-owner-13-billing-card');
    await customer.getByRole('button', { name: /Salvar cartão e pagar R\$\s89,90/ }).click();
    await customer.getByText('Pagamento confirmado. Sua assinatura está ativa.').waitFor();
    await customer.getByRole('heading', { name: 'Situação: Ativa' }).waitFor();
    await clean(customer, 'journey-owner-14-billing-paid');
    await customer.context().close();

    await owner.reload();
    await owner
      .getByRole('table', { name: 'Assinaturas' })
      .getByRole('row', { name: /Diana Rocha/ })
      .getByText('Ativa')
      .waitFor();
    await deskAndPhone(owner, 'journey-owner-15-subscription-active');
  }, 240_000); // one long journey: sign-up to subscription, three payers
});
