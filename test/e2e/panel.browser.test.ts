/**
 * A merchant's day in the panel, in Debian's chromium, against a real server on a real database: every step
 * through the page as a person would, screenshots of every page in test-output/screenshots.
 */
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.js';
import { seriousViolations } from '../support/axe.js';
import { cutChoices, launch, shot } from '../support/browser.js';
import { login as apiLogin } from '../support/factories.js';
import { call } from '../support/http.js';
import { fundMerchant } from '../support/ledger.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';

let server: TestServer;
let browser: Browser;
let page: Page;
let hooks: Receiver;
let accountId: number;
let keys: Record<string, string>;
/** A PIX sale left pending, whose page the phone opens. */
let pendingPix = '';
const EMAIL = 'loja@example.com';
const PASSWORD = 'senha-da-loja-1';

beforeAll(async () => {
  server = await startServer({ env: { WEBHOOK_RETRY_DELAYS_MS: '200,400' } });
  accountId = (
    await createAccount(server.runtime.platform.db, {
      name: 'Loja Exemplo',
      email: EMAIL,
      password: PASSWORD,
    })
  ).id;
  await fundMerchant(server.runtime.platform.db, accountId, 123_456);
  // cashout fees of R$ 1,50 + 1 %, for the new-withdrawal form's preview
  await server.runtime.platform.db.query(
    'UPDATE accounts SET cashout_fee_fixed = 150, cashout_fee_percent_e4 = 10000 WHERE id = $1',
    [accountId],
  );
  hooks = await startReceiver();
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
});
afterAll(async () => {
  await browser?.close();
  await hooks?.close();
  await server?.close();
});

const go = async (label: string) => {
  await page.getByRole('navigation', { name: 'Principal' }).getByRole('link', { name: label }).click();
  await page.getByRole('heading', { level: 1, name: label }).waitFor();
};

/** How many POSTs to `path` the page sends from now on (read with the function it answers). */
function posts(path: string): () => number {
  let n = 0;
  page.on('request', (r) => {
    if (r.method() === 'POST' && new URL(r.url()).pathname === path) n++;
  });
  return () => n;
}

describe('the merchant panel', () => {
  it('serves the page with its security headers', async () => {
    const res = await call('GET', `${server.url}/`);
    expect(res.status).toBe(200);
    expect(String(res.headers['content-security-policy'])).toContain("script-src 'self'");
    expect(String(res.headers['content-security-policy'])).not.toContain('unsafe-inline');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('refuses a wrong password in words, then logs in and shows the balance in reais', async () => {
    await page.goto(`${server.url}/`);
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Senha').fill('senha-errada');
    await page.getByRole('button', { name: 'Entrar' }).click();
    // in Portuguese only: the server's English messages are for integrators
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Credenciais inválidas.');
    // the sandbox is on in tests: every page, the login's included, says so
    await page
      .getByRole('complementary', { name: 'Modo de teste' })
      .filter({ hasText: 'Modo de teste.' })
      .waitFor();
    await shot(page, '01-login-error');
    await page.getByLabel('Senha').fill(PASSWORD);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('heading', { name: 'Visão geral' }).waitFor();
    // Intl separates the currency sign with a no-break space
    await expect
      .poll(async () => (await page.getByTestId('balance-available').textContent())?.replace(/\s/g, ' '))
      .toBe('R$ 1.234,56');
    // a new account's lists say they are empty instead of showing bare headings
    await page.getByText('Nenhuma venda ainda.').waitFor();
    await page.getByText('Nenhum saque ainda.').waitFor();
    await page
      .getByRole('complementary', { name: 'Modo de teste' })
      .filter({ hasText: 'Modo de teste.' })
      .waitFor();
    // the card money still to settle, beside the balances
    await expect
      .poll(async () => (await page.getByTestId('balance-receivable').textContent())?.replace(/\s/g, ' '))
      .toBe('R$ 0,00');
    // the chart's sales are what they credited, after fees, not their gross amounts
    await page
      .getByRole('table', { name: /Créditos de vendas no saldo \(líquidos de tarifas\)/ })
      .waitFor({ state: 'attached' });
    await shot(page, '02-overview');
  });

  it('generates a key shown once, that works on the public API', async () => {
    await go('Integrações');
    // a key is named (the list tells keys apart by it): the form asks for one
    await page.getByRole('button', { name: 'Gerar credencial' }).click();
    expect(await page.getByTestId('secret-value').count()).toBe(0);
    await page.getByLabel('Nome', { exact: true }).fill('Loja virtual');
    // a double click makes one key pair (a second, its private key never shown, would be live)
    const issued = posts('/api/credentials');
    await page.getByRole('button', { name: 'Gerar credencial' }).dblclick();
    const secret = page.getByTestId('secret-value');
    await secret.waitFor();
    expect(issued()).toBe(1);
    const privateKey = (await secret.textContent())!;
    const publicKey = (await page.locator('.card p code').first().textContent())!;
    expect(await page.getByText('você não verá esta chave novamente').count()).toBe(1);
    await shot(page, '03-credential-issued');
    keys = { 'x-api-public-key': publicKey, 'x-api-private-key': privateKey };
    const balance = await call('GET', `${server.url}/api/public/balance`, { headers: keys });
    expect(balance.status).toBe(200);
    await page.reload();
    await page.getByRole('heading', { name: 'Integrações' }).waitFor();
    await page.getByRole('button', { name: 'Gerar credencial' }).waitFor();
    expect(await page.content()).not.toContain(privateKey);
    // gateway listen for one of the account's keys (never a private key), and the quickstart
    // (a placeholder until the list of keys has loaded)
    const command = await waitUntil(async () => {
      const text = (await page.getByLabel('Comando gateway listen').textContent()) ?? '';
      return !text.includes('<sua chave pública>') && text;
    }, 10_000);
    expect(command).toMatch(
      /GATEWAY_PUBLIC_KEY=\S+ GATEWAY_PRIVATE_KEY=<sua chave privada> npx gateway listen --forward-to /,
    );
    await page.getByRole('heading', { name: 'Webhooks no seu computador' }).scrollIntoViewIfNeeded();
    await shot(page, '03b-local-webhooks');
    const href = await page.getByRole('link', { name: 'guia de início rápido' }).getAttribute('href');
    const guide = await call('GET', `${server.url}${href}`);
    expect(guide.status).toBe(200);
    expect(guide.text).toContain('# Quickstart');
  });

  it('saves a valid IP list, and names an invalid entry, in Portuguese, without saving it', async () => {
    await page.getByLabel('Endereços IP (um por linha)').fill('127.0.0.1\n::1');
    await page.getByRole('button', { name: 'Salvar IPs' }).click();
    await page.getByText('Lista salva.').waitFor();
    await page.getByLabel('Endereços IP (um por linha)').fill('127.0.0.1\n999.1.1.1');
    await page.getByRole('button', { name: 'Salvar IPs' }).click();
    await expect
      .poll(async () => page.locator('#ips-error').textContent())
      .toBe('Endereço IP inválido: "999.1.1.1".');
    await shot(page, '04-allowed-ips-error');
    const ips = await call<{ ips: string[] }>('GET', `${server.url}/api/public/balance`, { headers: keys });
    expect(ips.status).toBe(200); // still the saved list (127.0.0.1 is in it)
    expect(await page.getByText('Com a lista vazia').count()).toBe(1);
  });

  it('creates a webhook (secret once), sees a paid sale’s delivery in the log and resends it', async () => {
    await go('Webhooks');
    await page.getByLabel('URL do webhook').fill(`${hooks.url}/hooks`);
    expect(await page.getByRole('checkbox', { name: 'cart.abandoned' }).isChecked()).toBe(false);
    expect(await page.getByRole('checkbox', { name: 'sale.paid' }).isChecked()).toBe(true);
    // "Todos" is the default; unticked, nothing is chosen, and the form asks for a choice before sending
    const all = page.getByRole('checkbox', { name: /Todos os eventos de venda e de saque/ });
    expect(await all.isChecked()).toBe(true);
    // "*" covers sales and withdrawals only: the other events are not shown as chosen, and the form says why
    expect(await page.getByRole('checkbox', { name: /withdrawal\.completed$/ }).isChecked()).toBe(true);
    for (const other of [/dispute\.opened$/, /subscription\.created$/, /anticipation\.paid$/]) {
      expect(await page.getByRole('checkbox', { name: other }).isChecked()).toBe(false);
    }
    await page.getByText('"Todos" não inclui estes eventos nem os de carrinho').waitFor();
    await all.uncheck();
    expect(await page.getByRole('checkbox', { name: 'sale.paid' }).isChecked()).toBe(false);
    await page.getByRole('button', { name: 'Criar webhook' }).click();
    await page.getByText('Escolha ao menos um evento, ou "Todos".').waitFor();
    await all.check();
    // each event says what it tells, beside the name the receiver gets
    expect(await page.getByRole('checkbox', { name: 'Venda paga sale.paid', exact: true }).count()).toBe(1);
    // a double click makes one webhook
    const created = posts('/api/webhook');
    await page.getByRole('button', { name: 'Criar webhook' }).dblclick();
    await page.getByTestId('secret-value').waitFor();
    expect(created()).toBe(1);
    expect(await page.getByTestId('secret-value').textContent()).toMatch(/^whsec_/);
    // the new-webhook form starts over, so a second click cannot create the same webhook twice
    expect(await page.getByLabel('URL do webhook').first().inputValue()).toBe('');
    await shot(page, '05-webhook-created');
    const made = await call<{ events: string[] }[]>('GET', `${server.url}/api/webhook`, {
      headers: await sessionHeaders(),
    });
    expect(made.body[0]!.events).toEqual(['*']);

    const sale = await call<{ uuid: string; id: number }>('POST', `${server.url}/api/sandbox/sales`, {
      headers: keys,
      body: {
        amount: 25_000,
        paymentMethod: 'PIX',
        customer: {
          name: 'Beatriz Nunes',
          email: 'bia@example.com',
          document: '52998224725',
          phone: '11987654321',
        },
        items: [{ title: 'Plano anual', unitPrice: 25_000, quantity: 1, tangible: false }],
      },
    });
    expect(sale.status).toBe(201);
    await call('POST', `${server.url}/api/sandbox/sales/${sale.body.uuid}/status`, {
      headers: keys,
      body: { status: 'PAGO' },
    });
    await hooks.waitFor(2);

    await page.getByRole('button', { name: `Abrir o webhook ${hooks.url}/hooks` }).click();
    const log = page.getByRole('table', { name: 'Entregas' });
    const paidRow = log.getByRole('row').filter({ hasText: 'sale.paid' });
    // the delivery's status in Portuguese, never the API's DELIVERED
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Atualizar' }).click();
          return (await paidRow.textContent()) ?? '';
        },
        { timeout: 15_000 },
      )
      .toContain('Entregue');
    expect(await log.textContent()).not.toMatch(/DELIVERED|PENDING|FAILED/);
    await paidRow.getByRole('button', { name: /Ver o conteúdo/ }).click();
    await expect.poll(async () => page.locator('.payload pre').textContent()).toContain('"status": "PAGO"');
    // the content scrolls sideways on a phone: reachable by the keyboard too
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '06-webhook-deliveries');
    const before = hooks.received.length;
    await paidRow.getByRole('button', { name: /Reenviar/ }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'reenviada' }).count()).toBe(1);
    await hooks.waitFor(before + 1);
    expect(hooks.received.at(-1)!.headers['x-service-redelivery']).toBe('true');
  });

  it('previews the fees before sending, then makes a withdrawal confirmed with the password', async () => {
    await go('Saques');
    // the minimum and the fee are there before anything is typed
    await expect
      .poll(async () => (await page.getByTestId('withdrawal-terms').textContent())?.replace(/\s/g, ' '))
      .toBe('Valor mínimo R$ 100,00; taxa de cada saque: R$ 1,50 + 1% do valor, descontada do valor.');
    const preview = page.getByRole('definition');
    const previewText = async () => (await page.locator('#n-preview').textContent())?.replace(/\s/g, ' ');
    await page.getByLabel('Valor (R$)').fill('99,99');
    await expect.poll(previewText).toContain('Valor abaixo do mínimo de R$ 100,00.');
    // a Brazilian's dots group thousands: 1.000 is a thousand reais
    await page.getByLabel('Valor (R$)').fill('1.000');
    await expect.poll(previewText).toContain('Valor do saqueR$ 1.000,00');
    await page.getByLabel('Valor (R$)').fill('1.250,00');
    await expect.poll(previewText).toContain('Valor do saqueR$ 1.250,00');
    await expect.poll(async () => preview.count()).toBe(4);
    // R$ 1,50 fixed + 1 % of R$ 1.250,00: R$ 14,00; the balance loses the amount, the key receives the rest
    expect(await previewText()).toBe(
      'Valor do saqueR$ 1.250,00TaxasR$ 14,00 (R$ 1,50 fixa + R$ 12,50 variável)' +
        'Total debitado do saldoR$ 1.250,00Você recebe na chave PIXR$ 1.236,00',
    );
    await shot(page, '07-withdrawal-fee-preview');
    const none = await call<{ data: unknown[] }>('GET', `${server.url}/api/withdrawals`, {
      headers: await sessionHeaders(),
    });
    expect(none.body.data).toEqual([]); // a preview sends nothing
    await page.getByLabel('Valor (R$)').fill('150,00');
    await expect.poll(previewText).toContain('Você recebe na chave PIXR$ 147,00');
    await page.getByLabel('Chave PIX').fill('52998224725');
    await page.getByLabel('Confirme com sua senha').fill('senha-errada');
    await page.getByRole('button', { name: 'Solicitar saque' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toBe('Senha incorreta.');
    await page.getByLabel('Chave PIX').fill('111.111.111-11');
    await page.getByLabel('Confirme com sua senha').fill(PASSWORD);
    await page.getByRole('button', { name: 'Solicitar saque' }).click();
    await expect
      .poll(() => page.getByRole('alert').first().textContent())
      .toBe('Dados inválidos: confira a chave PIX.');
    // a key too short: why, beside the field, in its type's words, before anything is sent
    await page.getByLabel('Chave PIX').fill('123');
    await page.getByLabel('Confirme com sua senha').fill(PASSWORD);
    await page.getByRole('button', { name: 'Solicitar saque' }).click();
    await page.getByText('Um CPF tem 11 dígitos: confira a chave PIX.').waitFor();
    expect(await page.getByLabel('Chave PIX').getAttribute('aria-invalid')).toBe('true');
    // below the minimum: the amount field is the one marked
    await page.getByLabel('Valor (R$)').fill('50,00');
    await page.getByLabel('Chave PIX').fill('52998224725');
    await page.getByLabel('Confirme com sua senha').fill(PASSWORD);
    await page.getByRole('button', { name: 'Solicitar saque' }).click();
    await page.getByText('Valor abaixo do mínimo.').waitFor();
    expect(await page.getByLabel('Valor (R$)').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Valor (R$)').fill('150,00');
    // a phone key as people write it: shown with its mask, sent as +55 and its digits
    await page.getByLabel('Tipo de chave').selectOption('PHONE');
    await page.getByLabel('Chave PIX').fill('');
    await page.getByLabel('Chave PIX').pressSequentially('11987654321');
    expect(await page.getByLabel('Chave PIX').inputValue()).toBe('(11) 98765-4321');
    await page.getByLabel('Confirme com sua senha').fill(PASSWORD);
    await page.getByRole('button', { name: 'Solicitar saque' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('solicitado');
    // the form starts over: sending it again would need the amount, key and password typed anew
    expect(await page.getByLabel('Valor (R$)').inputValue()).toBe('');
    expect(await page.getByLabel('Chave PIX').inputValue()).toBe('');
    expect(await page.getByLabel('Confirme com sua senha').inputValue()).toBe('');
    const withdrawals = page.getByRole('table', { name: 'Saques' });
    await expect.poll(async () => withdrawals.getByRole('row').count()).toBe(2);
    // the payout worker may already have taken it: either early status, in Portuguese, never the raw code
    expect(await withdrawals.textContent()).toMatch(/Pendente|Em processamento/);
    expect(await withdrawals.textContent()).not.toMatch(/PENDING|PROCESSING/);
    await shot(page, '07-withdrawal');
    const list = await call<{ data: { amount: string; pixKey: string }[] }>(
      'GET',
      `${server.url}/api/withdrawals`,
      {
        headers: await sessionHeaders(),
      },
    );
    expect(list.body.data.map((w) => [w.amount, w.pixKey])).toEqual([['150.00', '+5511987654321']]);
  });

  it('in the sandbox, the withdrawal page completes or refuses a withdrawal being paid', async () => {
    const other = await call<{ uuid: string }>('POST', `${server.url}/api/public/cashout`, {
      headers: keys,
      body: { amount: 100, pixKey: '52998224725' },
    });
    expect(other.status, other.text).toBe(201);
    // both sent to the sandbox provider, which (in this test's settings) waits to be told
    await waitUntil(async () => {
      const now = await call<{ data: { status: string }[] }>('GET', `${server.url}/api/withdrawals`, {
        headers: await sessionHeaders(),
      });
      return now.body.data.length === 2 && now.body.data.every((w) => w.status === 'PROCESSING');
    });
    await go('Vendas');
    await go('Saques');
    const withdrawals = page.getByRole('table', { name: 'Saques' });
    const rows = withdrawals.getByRole('row');
    await expect
      .poll(async () => (await withdrawals.textContent())?.match(/Em processamento/g)?.length ?? 0)
      .toBe(2);
    const decide = async (row: number, button: string, status: string) => {
      await rows
        .nth(row)
        .getByRole('button', { name: /Detalhes do saque/ })
        .click();
      const card = page.getByRole('region', { name: /^Saque \d+$/ });
      await card.getByText('Modo de teste').waitFor();
      if (row === 1) await shot(page, '07-withdrawal-sandbox-buttons');
      await card.getByRole('button', { name: button }).click();
      await expect.poll(() => card.locator('dl').textContent()).toContain(`Status${status}`);
      expect(await card.getByRole('button', { name: /Simular/ }).count()).toBe(0);
      await expect.poll(async () => rows.nth(row).textContent()).toContain(status);
      await card.getByRole('button', { name: 'Fechar' }).click();
    };
    // newest first: the API's R$ 100,00, then the R$ 150,00 asked for here
    await decide(1, 'Simular conclusão', 'Concluído');
    await decide(2, 'Simular recusa', 'Recusado');
    const list = await call<{ data: { amount: string; status: string }[] }>(
      'GET',
      `${server.url}/api/withdrawals`,
      { headers: await sessionHeaders() },
    );
    expect(list.body.data.map((w) => [w.amount, w.status])).toEqual([
      ['100.00', 'COMPLETED'],
      ['150.00', 'FAILED'],
    ]);
  });

  it('finds the sale with a filter, and downloads the statement CSV', async () => {
    await go('Vendas');
    await page.getByLabel('Buscar').fill('beatriz');
    await page.getByLabel('Status').selectOption('PAGO');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    const table = page.getByRole('table', { name: 'Vendas' });
    await expect.poll(async () => table.getByRole('row').count()).toBe(2); // header + the sale
    expect(await table.textContent()).toContain('Beatriz Nunes');
    expect(await table.textContent()).toContain('Pago');
    expect(await table.textContent()).not.toContain('PAGO');
    // a period the server refuses: its reason, and none of the rows the filter before it found
    await page.getByLabel('De', { exact: true }).fill('2026-12-31');
    await page.getByLabel('Até', { exact: true }).fill('2026-01-01');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.getByRole('alert').filter({ hasText: 'confira o período' }).waitFor();
    expect(await table.getByRole('row').count()).toBe(1);
    await page.getByLabel('De', { exact: true }).fill('');
    await page.getByLabel('Até', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await expect.poll(async () => table.getByRole('row').count()).toBe(2);
    await table.getByRole('link', { name: /Detalhes da venda/ }).click();
    // the sale has its own page, with an address
    await page.getByRole('heading', { level: 1, name: /^Venda \d+$/ }).waitFor();
    expect(page.url()).toMatch(/#\/vendas\/[0-9a-f-]{36}$/);
    const detail = page.getByRole('region', { name: /^Venda \d+$/ });
    expect((await detail.textContent())?.replace(/\s/g, ' ')).toMatch(/Taxa ?R\$ \d+,\d{2}/);
    expect(await detail.textContent()).not.toMatch(/NaN|—/);
    const shown = (await detail.textContent())?.replace(/\s/g, ' ');
    expect(shown).toContain('Forma de pagamentoPIX');
    expect(shown).toContain('Itens1 × Plano anual (R$ 250,00)');
    expect(shown).toMatch(/Paga em\d{2}\/\d{2}\/\d{4}/);
    await shot(page, '08-sales-filtered');

    // a PIX charge still payable shows its QR code and a copy button, to hand to the buyer
    const pix = await call<{ id: number }>('POST', `${server.url}/api/transactions`, {
      headers: keys,
      body: {
        amount: 4_990,
        paymentMethod: 'PIX',
        customer: {
          name: 'Caio Prado',
          email: 'caio@example.com',
          document: '52998224725',
          phone: '11987654321',
        },
        items: [{ title: 'Curso', unitPrice: 4_990, quantity: 1, tangible: false }],
      },
    });
    expect(pix.status, pix.text).toBe(201);
    // another, left pending for the phone's turn
    const pending = await call<{ uuid: string }>('POST', `${server.url}/api/transactions`, {
      headers: keys,
      body: {
        amount: 1_990,
        paymentMethod: 'PIX',
        customer: {
          name: 'Enzo Reis',
          email: 'enzo@example.com',
          document: '52998224725',
          phone: '11987654321',
        },
        items: [{ title: 'Curso', unitPrice: 1_990, quantity: 1, tangible: false }],
      },
    });
    expect(pending.status, pending.text).toBe(201);
    pendingPix = pending.body.uuid;
    await go('Vendas');
    await page.getByLabel('Buscar').fill('caio');
    await page.getByLabel('Status').selectOption('PENDENTE');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    // the list masks the customer's document but for its last digits; the export too
    const listed = await call<{ data: { customer: { document: string } }[] }>(
      'GET',
      `${server.url}/api/sales?q=caio`,
      { headers: await sessionHeaders() },
    );
    expect(listed.body.data[0]!.customer.document).toBe('*******4725');
    await table.getByRole('link', { name: `Detalhes da venda ${pix.body.id}` }).click();
    await page.getByRole('img', { name: 'QR code do PIX desta venda' }).waitFor();
    expect(await page.getByRole('button', { name: 'Copiar código' }).count()).toBe(1);
    // the sale's own page shows the whole document
    expect(await page.getByRole('region', { name: /^Venda \d+$/ }).textContent()).toContain('52998224725');
    await shot(page, '08b-sale-pix-pending');

    // a pending charge can be cancelled from its page (POST /api/transactions/{id}/cancel, by the session); once paid, no longer
    expect(await page.getByRole('button', { name: 'Cancelar cobrança' }).count()).toBe(1);
    // the sandbox is on: the pending sale is paid from its page, then refunded
    await page.getByRole('button', { name: 'Simular pagamento' }).click();
    await page.getByText('Pagamento simulado: a venda está paga.').waitFor();
    expect(await page.getByRole('button', { name: 'Cancelar cobrança' }).count()).toBe(0);
    // part of it first: the sale stays paid, with what was refunded
    await page.getByRole('button', { name: 'Estornar' }).click();
    expect(await page.getByLabel('Valor a estornar (R$)').inputValue()).toBe('49,90');
    await page.getByLabel('Valor a estornar (R$)').fill('10,00');
    await page.getByRole('button', { name: 'Confirmar estorno de R$ 10,00' }).click();
    await page.getByText('Estorno de R$ 10,00 feito: o valor foi devolvido ao comprador.').waitFor();
    expect(await detail.textContent()).toMatch(/EstornadoR\$\s10,00/);
    // what the sale still credits: its net less each refund's amount but the fee that refund gave back
    const netAfterRefunds = async () => {
      const headers = await sessionHeaders();
      const sale = await call<{ netAmount: number }>('GET', `${server.url}/api/sales/${pix.body.id}`, {
        headers,
      });
      const made = await call<{ status: string; amountCents: number; feeReturnedCents: number }[]>(
        'GET',
        `${server.url}/api/sales/${pix.body.id}/refunds`,
        { headers },
      );
      const taken = made.body
        .filter((r) => r.status === 'succeeded')
        .reduce((sum, r) => sum + r.amountCents - r.feeReturnedCents, 0);
      return `Líquido após estornosR$ ${((sale.body.netAmount - taken) / 100).toFixed(2).replace('.', ',')}`;
    };
    const expected = await netAfterRefunds();
    expect(expected).not.toContain('R$ 0,00');
    await expect.poll(async () => (await detail.textContent())?.replace(/\s/g, ' ')).toContain(expected);
    // the sale's refunds, and who paid each (GET /api/sales/{id}/refunds, the panel's door)
    const refunds = page.getByRole('region', { name: 'Estornos' });
    await refunds.getByRole('cell', { name: /Sua conta: R\$\s\d/ }).waitFor();
    expect(await refunds.getByRole('row').count()).toBe(2);
    await shot(page, '08c-sale-partly-refunded');
    // then the rest, which the form proposes
    await page.getByRole('button', { name: 'Estornar' }).click();
    await page.getByRole('button', { name: 'Confirmar estorno de R$ 39,90' }).click();
    await expect
      .poll(async () => (await detail.textContent()) ?? '', { timeout: 20_000 })
      .toMatch(/EstornadoR\$\s49,90/);
    expect(await page.getByRole('button', { name: 'Estornar' }).count()).toBe(0);
    const whole = await netAfterRefunds();
    await expect.poll(async () => (await detail.textContent())?.replace(/\s/g, ' ')).toContain(whole);
    await shot(page, '08d-sale-refunded');

    await go('Extrato');
    await expect
      .poll(async () => page.getByRole('table', { name: 'Extrato' }).getByRole('row').count())
      .toBeGreaterThan(2);
    // each line names what it is about
    const statement = await page.getByRole('table', { name: 'Extrato' }).textContent();
    expect(statement).toMatch(/· saque \d+/);
    expect(statement).toMatch(/· venda \d+/);
    await shot(page, '09-statement');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Exportar CSV' }).click(),
    ]);
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv.charCodeAt(0)).toBe(0xfeff);
    expect(csv).toContain('Saque solicitado');
    expect(csv).toContain(';');
  });

  it('shows a card sale with its brand, last four and installments, and its installments in the Agenda de recebíveis', async () => {
    const token = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
      headers: { 'x-api-public-key': keys['x-api-public-key']! },
      body: { number: '4000000000000010', holderName: 'DORA LIMA', expMonth: 12, expYear: 2040, cvv: '123' },
    });
    expect(token.status, token.text).toBe(201);
    const sale = await call<{ id: number; status: string }>('POST', `${server.url}/api/transactions`, {
      headers: keys,
      body: {
        amount: 30_000,
        paymentMethod: 'CREDIT_CARD',
        installments: 3,
        card: { token: token.body.token },
        customer: {
          name: 'Dora Lima',
          email: 'dora@example.com',
          document: '52998224725',
          phone: '11987654321',
        },
        items: [{ title: 'Curso', unitPrice: 30_000, quantity: 1, tangible: false }],
      },
    });
    expect(sale.body.status, sale.text).toBe('PAGO');
    await go('Vendas');
    await page.getByLabel('Buscar').fill('dora');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    const table = page.getByRole('table', { name: 'Vendas' });
    await expect.poll(async () => table.getByRole('row').count()).toBe(2);
    expect(await table.textContent()).toContain('Visa •••• 0010 · 3x');
    await go('Agenda de recebíveis');
    const agenda = page.getByRole('table', { name: 'Agenda de recebíveis' });
    await expect.poll(async () => agenda.getByRole('row').count()).toBe(4); // header + three dates
    const text = await agenda.textContent();
    expect(text).toContain('parcela 1/3');
    expect(text).toContain('parcela 3/3');
    expect(text).toMatch(/R\$\s100,00/);
    await shot(page, '09b-receivables');

    // a card the acquirer refused: its page credits nothing, so it shows no fee and no net as if paid
    const refusedToken = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
      headers: { 'x-api-public-key': keys['x-api-public-key']! },
      body: { number: '4000000000000002', holderName: 'DORA LIMA', expMonth: 12, expYear: 2040, cvv: '123' },
    });
    const refused = await call<{ id: number; status: string }>('POST', `${server.url}/api/transactions`, {
      headers: keys,
      body: {
        amount: 5_000,
        paymentMethod: 'CREDIT_CARD',
        card: { token: refusedToken.body.token },
        customer: {
          name: 'Dora Lima',
          email: 'dora@example.com',
          document: '52998224725',
          phone: '11987654321',
        },
        items: [{ title: 'Curso', unitPrice: 5_000, quantity: 1, tangible: false }],
      },
    });
    expect(refused.body.status, refused.text).toBe('RECUSADO');
    await page.goto(`${server.url}/#/vendas/${refused.body.id}`);
    await page.getByText('Nenhum: a venda não foi paga').waitFor();
    expect(await page.getByText('Taxa', { exact: true }).count()).toBe(0);
  });

  it('revokes the key after confirming, and the API refuses it; logs out', async () => {
    await go('Integrações');
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: `Revogar a credencial ${keys['x-api-public-key']}` }).click();
    await expect
      .poll(async () => (await call('GET', `${server.url}/api/public/balance`, { headers: keys })).status)
      .toBe(401);
    await page.getByRole('button', { name: 'Sair' }).click();
    await page.getByRole('button', { name: 'Entrar' }).waitFor();
    await shot(page, '10-logged-out');
  });

  it('fits a 390 px phone without sideways scrolling, and sends an expired session back to login', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await phone.goto(`${server.url}/`);
    await phone.getByLabel('E-mail').fill(EMAIL);
    await phone.getByLabel('Senha').fill(PASSWORD);
    await phone.getByRole('button', { name: 'Entrar' }).click();
    for (const label of [
      'Visão geral',
      'Vendas',
      'Saques',
      'Extrato',
      'Agenda de recebíveis',
      'Integrações',
      'Webhooks',
    ]) {
      await phone.getByRole('navigation', { name: 'Principal' }).getByRole('link', { name: label }).click();
      await phone.getByRole('heading', { level: 1, name: label }).waitFor();
      const overflow = await phone.evaluate<number>(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      );
      expect(overflow, label).toBeLessThanOrEqual(0);
      expect(await cutChoices(phone), label).toEqual([]);
      // the tab names the page, and the page opened from the menu has the focus (announced from its start)
      await expect.poll(() => phone.title()).toBe(`${label} · Painel do lojista`);
      if (label !== 'Visão geral') {
        await expect.poll(() => phone.evaluate('document.activeElement?.id')).toBe('conteudo');
      }
      if (label === 'Vendas') {
        // rows shown as cards keep their table semantics: a table of rows of cells, each cell under its heading
        const table = phone.getByRole('table', { name: 'Vendas' });
        await expect.poll(() => table.getByRole('row').count()).toBeGreaterThan(1);
        expect(await table.getByRole('columnheader', { name: 'Status' }).count()).toBe(1);
        expect(await table.getByRole('cell', { name: 'Pago' }).count()).toBeGreaterThan(0);
      }
      await shot(phone, `phone-${label.normalize('NFD').replace(/[^a-zA-Z]/g, '')}`);
    }
    // a webhook's page, headed by its URL (a long one, as real ones are): the headings wrap inside it
    const longUrl = `${hooks.url}/integracoes/pagamentos/webhooks/recebedor-de-eventos-da-loja-principal`;
    const signedIn = await apiLogin(server, EMAIL, PASSWORD);
    const session = { cookie: signedIn.cookie, 'x-csrf-token': signedIn.csrf };
    const hook = await call<{ id: string }>('POST', `${server.url}/api/webhook`, {
      headers: session,
      body: { webhookUrl: longUrl, events: ['*'] },
    });
    expect(hook.status, hook.text).toBe(201);
    await phone.reload(); // the Webhooks page, opened last, lists the new one once loaded again
    await phone.getByRole('button', { name: `Abrir o webhook ${longUrl}` }).click();
    await phone.getByRole('heading', { name: `Saúde de ${longUrl}` }).waitFor();
    expect(
      await phone.evaluate<number>(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      ),
      'a webhook with a long URL',
    ).toBeLessThanOrEqual(0);
    await shot(phone, 'phone-webhook-long-url');
    await call('DELETE', `${server.url}/api/webhook/${hook.body.id}`, { headers: session });
    // a PIX sale still payable, with its code and QR: its page fits too
    await phone.goto(`${server.url}/#/vendas/${pendingPix}`);
    await phone.getByRole('img', { name: 'QR code do PIX desta venda' }).waitFor();
    // what it will credit, said as such: it is not paid yet
    await phone.getByText('Líquido quando paga').waitFor();
    expect(
      await phone.evaluate<number>(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      ),
    ).toBeLessThanOrEqual(0);
    await shot(phone, 'phone-sale-pix-pending');
    // the session ends on the server (as on expiry): the next call sends the user to login with a message
    await server.runtime.platform.db.query(
      "UPDATE panel_sessions SET expires_at = now() - interval '1 second'",
    );
    await phone.getByRole('navigation', { name: 'Principal' }).getByRole('link', { name: 'Vendas' }).click();
    await phone.getByText('Sua sessão expirou. Entre novamente.').waitFor();
    await shot(phone, 'phone-session-expired');
    await phone.close();
  });
});

describe('tabs of one browser share one session', () => {
  const login = async (p: Page, email: string, password: string) => {
    await p.goto(`${server.url}/`);
    await p.getByLabel('E-mail').fill(email);
    await p.getByLabel('Senha').fill(password);
    await p.getByRole('button', { name: 'Entrar' }).click();
    await p.getByRole('heading', { name: 'Visão geral' }).waitFor();
  };

  it('a login in another tab restarts this one as that store; a logout in one ends the other', async () => {
    await createAccount(server.runtime.platform.db, {
      name: 'Outra Loja',
      email: 'outra@example.com',
      password: 'senha-da-outra-1',
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const first = await context.newPage();
    const second = await context.newPage();
    await first.goto(`${server.url}/`);
    await second.goto(`${server.url}/`);
    const who = (p: Page) =>
      p
        .locator('.who')
        .textContent({ timeout: 1000 })
        .catch(() => null);
    await login(first, EMAIL, PASSWORD);
    await expect.poll(() => who(second)).toBe('Loja Exemplo'); // the tab on the login page follows
    await second.getByRole('button', { name: 'Sair' }).click();
    await first.getByRole('button', { name: 'Entrar' }).waitFor(); // a logout ends it for both
    await login(second, 'outra@example.com', 'senha-da-outra-1');
    // the first tab never shows one store's name over the other's data: it starts over as the new session
    await expect.poll(() => who(first)).toBe('Outra Loja');
    await first.reload();
    expect(await who(first)).toBe('Outra Loja');
    await context.close();
  });

  it('a tab that missed the news (frozen, put away) checks its session when it comes back into view', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const tab = await context.newPage();
    await login(tab, EMAIL, PASSWORD);
    expect(await tab.locator('.who').textContent()).toBe('Loja Exemplo');
    // another store's session put in the cookie jar behind the tab's back (no tab told it)
    const other = await call('POST', `${server.url}/api/auth/login`, {
      body: { email: 'outra@example.com', password: 'senha-da-outra-1' },
    });
    const token = /gw_session=([^;]+)/.exec(String(other.headers['set-cookie']))![1]!;
    await context.addCookies([{ name: 'gw_session', value: token, url: server.url }]);
    await tab.evaluate('document.dispatchEvent(new Event("visibilitychange"))');
    await expect
      .poll(() =>
        tab
          .locator('.who')
          .textContent({ timeout: 1000 })
          .catch(() => null),
      )
      .toBe('Outra Loja');
    await context.close();
  });

  it('"Sair" ends the session even when another login replaced this tab’s CSRF token unnoticed', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const tab = await context.newPage();
    await login(tab, EMAIL, PASSWORD);
    // a new session of the same user put in the cookie jar behind the tab's back (no tab told it)
    const fresh = await call<{ csrfToken: string }>('POST', `${server.url}/api/auth/login`, {
      body: { email: EMAIL, password: PASSWORD },
    });
    const token = /gw_session=([^;]+)/.exec(String(fresh.headers['set-cookie']))![1]!;
    await context.addCookies([{ name: 'gw_session', value: token, url: server.url }]);
    await tab.getByRole('button', { name: 'Sair' }).click();
    await tab.getByText('Você saiu.').waitFor();
    const after = await call('GET', `${server.url}/api/auth/me`, {
      headers: { cookie: `gw_session=${token}` },
    });
    expect(after.status).toBe(401);
    await context.close();
  });
});

async function sessionHeaders(): Promise<Record<string, string>> {
  const cookies = await page.context().cookies();
  return { cookie: cookies.map((c) => `${c.name}=${c.value}`).join('; ') };
}
