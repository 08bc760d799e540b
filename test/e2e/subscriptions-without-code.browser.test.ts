/**
 * A subscription sold without code, in Debian's chromium: the owner makes a plan in Assinaturas and subscribes a
 * new customer by card without a card; the customer's e-mail (a real SMTP server) carries the billing page, which
 * says test mode, takes a sandbox card and charges the first period; the panel then lists it active. A Pix
 * period's billing page shows its QR code and a copy button. Every page axe-clean, screenshots kept (the panel at
 * 1280 px, the customer's page at 390 px).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardEnding } from '../cards/cards.js';
import { seriousViolations } from '../support/axe.js';
import { cutChoices, launch, shot } from '../support/browser.js';
import { createMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { Mailbox } from '../support/mailbox.js';
import { startServer, type TestServer } from '../support/server.js';

let mailbox: Mailbox;
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  mailbox = await Mailbox.start();
  server = await startServer({ env: { SMTP_URL: mailbox.url } });
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await mailbox?.stop();
});

async function clean(page: Page, name: string): Promise<void> {
  await shot(page, name);
  expect(await seriousViolations(page), name).toEqual([]);
}

/** The merchant's Assinaturas page, logged in, in a browser window of the given size. */
async function subscriptionsPage(
  m: { email: string; password: string },
  width: number,
  height: number,
): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width, height } })).newPage();
  await page.goto(`${server.url}/`);
  await page.getByLabel('E-mail').fill(m.email);
  await page.getByLabel('Senha').fill(m.password);
  await page.getByRole('button', { name: 'Entrar' }).click();
  await page
    .getByRole('navigation', { name: 'Principal' })
    .getByRole('link', { name: 'Assinaturas' })
    .click();
  await page.getByRole('heading', { level: 1, name: 'Assinaturas' }).waitFor();
  return page;
}

describe('a subscription sold without code', () => {
  it('plan and card subscription made in the panel; the customer pays the first period on the e-mailed page', async () => {
    const m = await createMerchant(server, 'Academia Corpo Leve');
    const email = `aluna-${Date.now()}@example.com`;
    const panel = await subscriptionsPage(m, 1280, 900);

    await panel.getByLabel('Nome do plano').fill('Musculação mensal');
    await panel.getByLabel('Valor por período (R$)').fill('129,90');
    await panel.getByLabel('Cobrança', { exact: true }).selectOption('month');
    await panel.getByRole('checkbox', { name: 'PIX', exact: true }).check();
    await panel.getByRole('button', { name: 'Criar plano' }).click();
    await panel
      .getByRole('table', { name: 'Planos' })
      .getByRole('row', { name: /Musculação mensal/ })
      .waitFor();
    await clean(panel, 'subscriptions-without-code-01-plan');

    await panel.getByLabel('Cliente', { exact: true }).selectOption('new');
    await panel.getByLabel('Nome do cliente').fill('Ana Costa');
    await panel.getByLabel('E-mail do cliente').fill(email);
    await panel.getByLabel('CPF ou CNPJ do cliente').fill('529.982.247-25');
    await panel.getByRole('radio', { name: 'Cartão de crédito' }).check();
    await panel.getByLabel('Cartão', { exact: true }).selectOption('email');
    await panel.getByRole('button', { name: 'Criar assinatura' }).click();
    await panel.getByText(/Ana Costa recebe por e-mail a página da assinatura/).waitFor();
    const row = panel.getByRole('table', { name: 'Assinaturas' }).getByRole('row', { name: /Ana Costa/ });
    expect(await row.textContent()).toContain('Aguardando o cartão do cliente');
    await clean(panel, 'subscriptions-without-code-02-subscription');

    // the same page on a phone: "Nova assinatura" with its longest choices open fits the screen's width
    const small = await subscriptionsPage(m, 390, 844);
    await small.getByLabel('Cliente', { exact: true }).selectOption('new');
    await small.getByRole('radio', { name: 'Cartão de crédito' }).check();
    await small.getByLabel('Cartão', { exact: true }).waitFor();
    expect(
      await small.evaluate<number>(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      ),
    ).toBeLessThanOrEqual(0);
    // and every choice shows its chosen option whole (its text, with room for the arrow, within the box)
    expect(await cutChoices(small)).toEqual([]);
    await clean(small, 'subscriptions-without-code-02b-phone');
    await small.context().close();

    const mail = await mailbox.waitFor(email, /Musculação mensal: cadastre o cartão/);
    expect(mail.subject.startsWith('[Teste] ')).toBe(true);
    expect(mail.text).toContain('Modo de teste');
    const link = /(http\S+\/billing\/[A-Za-z0-9_-]{32})/.exec(mail.text)?.[1];
    expect(link, mail.text).toBeDefined();

    const phone = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await phone.goto(`${server.url}${new URL(link!).pathname}`);
    await phone.getByRole('heading', { name: 'Musculação mensal' }).waitFor();
    await phone.getByRole('complementary', { name: 'Modo de teste' }).getByText('Modo de teste.').waitFor();
    await phone.getByText(/a primeira cobrança, de R\$\s129,90, é feita assim que ele for salvo/).waitFor();
    await clean(phone, 'subscriptions-without-code-03-billing-asks-card');
    await phone.getByLabel('Número do cartão').fill(cardEnding('1'));
    await phone.getByLabel('Nome impresso no cartão').fill('ANA COSTA');
    await phone.getByLabel('Validade (MM/AA)').fill(`12${String(new Date().getUTCFullYear() + 2).slice(-2)}`);
    await phone.getByLabel('Código de segurança (CVV)').fill('123');
    await phone.getByRole('button', { name: /Salvar cartão e pagar R\$\s129,90/ }).click();
    await phone.getByText('Pagamento confirmado. Sua assinatura está ativa.').waitFor();
    await phone.getByRole('heading', { name: 'Situação: Ativa' }).waitFor();
    expect(await phone.getByRole('listitem').first().textContent()).toContain('Pago');
    await clean(phone, 'subscriptions-without-code-04-billing-paid');

    // a plan turned off takes no new subscriptions (and is offered no more), then on again
    const planRow = panel
      .getByRole('table', { name: 'Planos' })
      .getByRole('row', { name: /Musculação mensal/ });
    await planRow.getByRole('button', { name: 'Desativar o plano Musculação mensal' }).click();
    await planRow.getByText('Inativo').waitFor();
    await panel.getByText('Crie um plano acima para vender assinaturas.').waitFor();
    await planRow.getByRole('button', { name: 'Reativar o plano Musculação mensal' }).click();
    await planRow.getByText('Ativo').waitFor();

    await panel.reload();
    const paidRow = panel.getByRole('table', { name: 'Assinaturas' }).getByRole('row', { name: /Ana Costa/ });
    await paidRow.getByText('Ativa').waitFor();
    await clean(panel, 'subscriptions-without-code-05-active');

    // its own page: the customer's card, the address of the customer's page (to send again), its sale
    await paidRow.getByRole('link', { name: 'Ver a assinatura de Ana Costa' }).click();
    await panel.getByRole('heading', { level: 1, name: 'Assinatura de Ana Costa' }).waitFor();
    await panel.getByText(/Cartão de crédito · Visa final \d{4}/).waitFor();
    expect(await panel.locator('code').first().textContent()).toMatch(/\/billing\/[A-Za-z0-9_-]{32}$/);
    const sales = panel.getByRole('table', { name: 'Vendas da assinatura' });
    await expect.poll(() => sales.getByRole('row').count()).toBe(2);
    expect(await sales.textContent()).toContain('Pago');
    await clean(panel, 'subscriptions-without-code-06-detail');
    // and on a phone
    const detailPhone = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await detailPhone.goto(panel.url().replace(/#.*/, ''));
    await detailPhone.getByLabel('E-mail').fill(m.email);
    await detailPhone.getByLabel('Senha').fill(m.password);
    await detailPhone.getByRole('button', { name: 'Entrar' }).click();
    await detailPhone.getByRole('navigation', { name: 'Principal' }).waitFor();
    await detailPhone.goto(panel.url());
    await detailPhone.getByRole('heading', { level: 1, name: 'Assinatura de Ana Costa' }).waitFor();
    await detailPhone.getByRole('table', { name: 'Vendas da assinatura' }).getByText('Pago').waitFor();
    expect(
      await detailPhone.evaluate<number>(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      ),
    ).toBeLessThanOrEqual(0);
    await clean(detailPhone, 'subscriptions-without-code-06b-detail-phone');
    await detailPhone.context().close();
  });

  it("a Pix period's billing page shows its QR code and a copy button", async () => {
    const m = await createMerchant(server, 'Escola Aprender');
    const api = <T>(method: string, path: string, body?: unknown) =>
      call<T>(method, `${server.url}${path}`, { headers: m.keys, ...(body === undefined ? {} : { body }) });
    const plan = await api<{ id: string }>('POST', '/api/plans', {
      name: 'Mensalidade',
      amountCents: 45_000,
      interval: 'month',
      methods: ['PIX'],
    });
    const customer = await api<{ id: string }>('POST', '/api/customers', {
      name: 'Carlos Lima',
      email: `carlos-${Date.now()}@example.com`,
      document: '11144477735',
    });
    const sub = await api<{ billingUrl: string }>('POST', '/api/subscriptions', {
      customerId: customer.body.id,
      planId: plan.body.id,
      paymentMethod: 'PIX',
    });
    expect(sub.status, sub.text).toBe(201);
    const phone = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    const path = new URL(sub.body.billingUrl).pathname;
    // the period's charge is made by the running scheduler within seconds
    for (let i = 0; i < 30; i++) {
      await phone.goto(`${server.url}${path}`);
      if (await phone.getByRole('img', { name: 'QR Code do Pix' }).count()) break;
      await phone.waitForTimeout(1000);
    }
    await phone.getByRole('img', { name: 'QR Code do Pix' }).waitFor();
    await phone.getByRole('button', { name: 'Copiar código Pix' }).waitFor();
    await phone.getByRole('complementary', { name: 'Modo de teste' }).getByText('Modo de teste.').waitFor();
    // its next charge is the next period's, due on its first day and e-mailed BOLETO_DAYS_BEFORE (5) days ahead
    const text = await phone.locator('main').innerText();
    const next =
      /Próxima cobrança: vence em (\d\d\/\d\d\/\d{4}) \(enviada por e-mail em (\d\d\/\d\d\/\d{4})\)/.exec(
        text,
      );
    expect(next, text).not.toBeNull();
    const periodEnd = /Período atual: \S+ a (\S+)\./.exec(text)![1];
    expect(next![1]).toBe(periodEnd);
    const asDate = (br: string) => Date.parse(br.split('/').reverse().join('-'));
    expect((asDate(next![1]!) - asDate(next![2]!)) / 86_400_000).toBe(5);
    await clean(phone, 'subscriptions-without-code-06-billing-pix');
  });
});
