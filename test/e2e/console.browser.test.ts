/**
 * The operators' console (/ops) in Debian's chromium, one journey per role: an invited admin enrols the
 * authenticator and signs in; support reads an account, offered no action but resending a delivery (confirmed first); risk suspends an account
 * and releases a held withdrawal; finance reads the daily report; admin approves a sign-up from the review
 * queue and invites an operator (confirmed first; the link e-mailed only, the page saying so), then resends
 * the invitation (confirmed first).
 * Every page axe-clean, screenshots kept.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moveTo, sandboxSale } from '../sales/fixtures.js';
import { seriousViolations } from '../support/axe.js';
import { launch, shot } from '../support/browser.js';
import { createCashout } from '../support/cashouts.js';
import { createMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { fundMerchant } from '../support/ledger.js';
import { linkToken, Mailbox } from '../support/mailbox.js';
import {
  createFeePlan,
  createOperator,
  giveFeePlan,
  inFreshTotpStep,
  inviteOperator,
  signInToConsole,
  totpCode,
} from '../support/operators.js';
import { startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
import { createWebhook } from '../support/webhooks.js';

let server: TestServer;
let browser: Browser;
let mailbox: Mailbox;

beforeAll(async () => {
  mailbox = await Mailbox.start();
  server = await startServer({ env: { SIGNUP: 'on', SMTP_URL: mailbox.url } });
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await mailbox?.stop();
});

async function newPage(): Promise<Page> {
  return (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
}

const menu = (page: Page) => page.getByRole('navigation', { name: 'Principal' });
async function clean(page: Page, name: string): Promise<void> {
  await shot(page, name);
  expect(await seriousViolations(page), name).toEqual([]);
}

describe("the operators' console", () => {
  it('an invited operator sets a password, enrols the authenticator and signs in', async () => {
    await inFreshTotpStep();
    const invited = await inviteOperator(server, 'admin');
    const page = await newPage();
    await page.goto(`${server.url}/ops#/convite/${invited.token}`);
    await page.getByRole('heading', { name: 'Convite para o console' }).waitFor();
    // the tab names the page, signed out as signed in
    await expect.poll(() => page.title()).toBe('Aceitar convite · Console de operação');
    await clean(page, 'console-01-invitation');
    await page.getByLabel('Senha (mínimo de 8 caracteres)').fill('senha-do-operador');
    await page.getByRole('button', { name: 'Continuar' }).click();
    const secret = (await page.locator('code.secret').textContent())!.trim();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await clean(page, 'console-02-authenticator');
    await page.getByLabel('Código do autenticador').fill(totpCode(secret, -1));
    await page.getByRole('button', { name: 'Concluir cadastro' }).click();
    await page.getByText('Cadastro concluído.').waitFor();
    await expect.poll(() => page.title()).toBe('Entrar · Console de operação');

    await page.getByLabel('E-mail').fill(invited.email);
    await page.getByLabel('Senha').fill('senha-do-operador');
    await page.getByLabel('Código do autenticador').fill(totpCode(secret, 0));
    await page.getByRole('button', { name: 'Entrar' }).click();
    for (const name of ['Contas', 'Fila de análise', 'Saques', 'Contestações', 'Relatórios', 'Operadores']) {
      await menu(page).getByRole('link', { name }).waitFor();
    }
    await clean(page, 'console-03-admin-accounts');
  });

  it('support reads an account whole, with no action offered but a delivery resent, and no reports or operators', async () => {
    const m = await createMerchant(server, 'Padaria do Zé');
    const receiver = await startReceiver();
    await createWebhook(server, m, `${receiver.url}/hooks`, ['sale.paid']);
    const sale = await sandboxSale(server, m, {});
    await moveTo(server, m, sale.id, 'PAGO');
    await receiver.waitFor(1);
    const support = await createOperator(server, 'support');
    const page = await newPage();
    await signInToConsole(page, server, support);
    expect(await menu(page).getByRole('link', { name: 'Relatórios' }).count()).toBe(0);
    expect(await menu(page).getByRole('link', { name: 'Operadores' }).count()).toBe(0);
    // typed as people type, without accents or capitals
    await page.getByLabel('Nome, CPF/CNPJ ou e-mail').fill('padaria do ze');
    await page.getByRole('button', { name: 'Buscar' }).click();
    const table = page.getByRole('table', { name: 'Contas' });
    await table.getByRole('cell', { name: 'Padaria do Zé' }).waitFor();
    expect(await table.getByRole('row').count()).toBe(2);
    await table.getByRole('link', { name: `#${m.accountId}` }).click();
    await page.getByRole('heading', { level: 1, name: /Padaria do Zé/ }).waitFor();
    await page.getByRole('table', { name: 'Vendas recentes' }).getByRole('cell', { name: 'Pago' }).waitFor();
    expect(await page.getByRole('button', { name: 'Suspender conta' }).count()).toBe(0);
    await clean(page, 'console-04-support-account');
    // a delivery is resent only once "Confirmar" is pressed in the dialog that says what will happen
    await page.getByRole('button', { name: 'Ver entregas' }).click();
    const log = page.getByRole('table', { name: `Entregas para ${receiver.url}/hooks` });
    const resend = log.getByRole('button', { name: /^Reenviar a entrega / });
    await resend.click();
    const dialog = page.getByRole('dialog', { name: /^Reenviar a entrega #\d+\?$/ });
    await dialog.getByText('o lojista o recebe mais uma vez').waitFor();
    await dialog.getByRole('button', { name: 'Voltar' }).click();
    expect(receiver.received).toHaveLength(1);
    await resend.click();
    await dialog.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByText(/Entrega #\d+ reenviada/).waitFor();
    await receiver.waitFor(2);
    await receiver.close();
  });

  it('risk suspends an account with a reason and releases a held withdrawal', async () => {
    const m = await createMerchant(server, 'Loja Suspeita');
    await fundMerchant(server.runtime.platform.db, m.accountId, 100_000);
    const risk = await createOperator(server, 'risk');
    await call('POST', `${server.url}/api/ops/accounts/${m.accountId}/payout-hold`, {
      headers: risk.ops,
      body: { reason: 'análise' },
    });
    const held = await createCashout(server.url, m, 150);
    const stale = await createCashout(server.url, m, 120);
    const page = await newPage();
    await signInToConsole(page, server, risk);
    await page.goto(`${server.url}/ops#/contas/${m.accountId}`);
    await page.getByRole('heading', { level: 1, name: /Loja Suspeita/ }).waitFor();
    await page.getByRole('button', { name: 'Suspender conta' }).click();
    const suspend = page.getByRole('dialog', { name: 'Suspender a conta?' });
    // nothing is sent before a reason and "Confirmar"
    await expect(suspend.getByRole('button', { name: 'Confirmar' }).isDisabled()).resolves.toBe(true);
    // and it says why "Confirmar" waits, read with the button
    const why = suspend.getByText('Escreva o motivo para confirmar.');
    await why.waitFor();
    const confirmButton = suspend.getByRole('button', { name: 'Confirmar' });
    expect(await confirmButton.getAttribute('aria-describedby')).toBe(await why.getAttribute('id'));
    await suspend.getByLabel(/^Motivo/).fill('Muitas contestações');
    await why.waitFor({ state: 'detached' });
    await clean(page, 'console-05-risk-account');
    await suspend.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByRole('status').getByText('Conta suspensa.').waitFor();
    await page.getByRole('button', { name: 'Reativar conta' }).waitFor();
    await page.getByText('— Muitas contestações').waitFor();
    // closing an account is the admin's: not offered to risk
    expect(await page.getByRole('button', { name: 'Encerrar conta' }).count()).toBe(0);

    await menu(page).getByRole('link', { name: 'Saques' }).click();
    const queue = page.getByRole('table', { name: 'Em análise (retidos)' });
    // its number, and the start of the id the audit log names it by
    const [heldRow] = await server.runtime.platform.db.query<{ uuid: string }>(
      'SELECT uuid::text FROM withdrawals WHERE id = $1',
      [held.id],
    );
    await queue
      .getByRole('cell', { name: `#${held.id} ${heldRow!.uuid.slice(0, 8)}`, exact: true })
      .waitFor();
    await clean(page, 'console-06-held-withdrawals');
    await page.getByRole('button', { name: `Liberar o saque ${held.id}` }).click();
    await page
      .getByRole('dialog', { name: 'Liberar o saque?' })
      .getByRole('button', { name: 'Confirmar' })
      .click();
    await page.getByRole('status').getByText(`Saque #${held.id} liberado`).waitFor();
    await queue.getByRole('cell', { name: `#${held.id}` }).waitFor({ state: 'detached' });
    const [row] = await server.runtime.platform.db.query<{ status: string }>(
      'SELECT status FROM withdrawals WHERE id = $1',
      [held.id],
    );
    expect(['PENDING', 'PROCESSING']).toContain(row!.status);

    // a decision on what another operator decided meanwhile: said as such at the top, and the list refreshed
    await queue.getByRole('cell', { name: `#${stale.id}` }).waitFor();
    const elsewhere = await call('POST', `${server.url}/api/ops/withdrawals/${stale.id}/cancel`, {
      headers: risk.ops,
      body: {},
    });
    expect(elsewhere.status, elsewhere.text).toBe(200);
    await page.getByRole('button', { name: `Liberar o saque ${stale.id}` }).click();
    await page
      .getByRole('dialog', { name: 'Liberar o saque?' })
      .getByRole('button', { name: 'Confirmar' })
      .click();
    await page
      .getByRole('status')
      .getByText(
        'Isto já mudou de situação e não pode mais ser feito. Atualize a página para ver como está agora.',
      )
      .waitFor();
    await page.getByText('Nenhum saque nesta fila.').waitFor();
    expect(await page.getByText('não pode ser cancelada').count()).toBe(0);
  });

  it('admin closes an account from its page, with a reason: its keys are refused from then on', async () => {
    const m = await createMerchant(server, 'Loja Encerrada');
    const admin = await createOperator(server, 'admin');
    await giveFeePlan(server, admin, m.accountId); // a plan to offer: the account's page offers to change it
    const page = await newPage();
    await signInToConsole(page, server, admin);
    await page.goto(`${server.url}/ops#/contas/${m.accountId}`);
    await page.getByRole('heading', { level: 1, name: /Loja Encerrada/ }).waitFor();
    await page
      .getByRole('region', { name: 'Tarifas' })
      .getByRole('button', { name: 'Aplicar plano' })
      .waitFor();
    await page.getByRole('button', { name: 'Encerrar conta' }).click();
    const close = page.getByRole('dialog', { name: 'Encerrar a conta?' });
    await expect(close.getByRole('button', { name: 'Confirmar' }).isDisabled()).resolves.toBe(true);
    await close.getByLabel(/^Motivo/).fill('Pedido do cliente');
    await close.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByRole('status').getByText('Conta encerrada.').waitFor();
    await page.getByText('— Pedido do cliente').waitFor();
    expect(await page.getByRole('button', { name: 'Encerrar conta' }).count()).toBe(0);
    // a closed account's prices no longer change: not offered
    expect(await page.getByRole('button', { name: 'Aplicar plano' }).count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    await clean(page, 'console-05b-account-closed');
    const balance = await call('GET', `${server.url}/api/public/balance`, { headers: m.keys });
    expect(balance.status).toBe(401);
  });

  it('finance reads the daily report', async () => {
    const m = await createMerchant(server, 'Loja Relatório');
    const sale = await sandboxSale(server, m, {
      amount: 12_345,
      items: [{ title: 'x', unitPrice: 12_345, quantity: 1, tangible: false }],
    });
    await moveTo(server, m, sale.id, 'PAGO');
    const finance = await createOperator(server, 'finance');
    const page = await newPage();
    await signInToConsole(page, server, finance);
    await menu(page).getByRole('link', { name: 'Relatórios' }).click();
    const table = page.getByRole('table', { name: 'Relatório diário' });
    await table.getByRole('cell', { name: 'PIX' }).first().waitFor();
    await page.getByRole('term').filter({ hasText: 'Take rate' }).waitFor();
    // TPV and fees per day drawn as the panel's overview draws its days: the paid sale is a bar
    await page
      .locator('figure.chart')
      .getByText(/TPV: R\$/)
      .waitFor();
    const bars = await page
      .locator('figure.chart svg rect')
      .evaluateAll((rects) =>
        rects.filter((r) => Number(r.getAttribute('height')) > 0).map((r) => r.textContent ?? ''),
      );
    expect(bars.some((title) => /TPV R\$/.test(title))).toBe(true);
    await clean(page, 'console-07-finance-report');
  });

  it('admin approves a sign-up from the review queue and invites an operator', async () => {
    const email = `cadastro-${Date.now()}@example.com`;
    const signup = await call('POST', `${server.url}/api/signup`, {
      body: {
        name: 'Loja Nova',
        legalName: 'Loja Nova Ltda',
        document: '11222333000181',
        email,
        password: 'senha-bem-longa',
        phone: '11987654321',
        address: {
          street: 'Rua A',
          number: '1',
          district: 'Centro',
          city: 'Recife',
          state: 'PE',
          zipCode: '50000-000',
        },
      },
    });
    expect(signup.status).toBe(201);
    const admin = await createOperator(server, 'admin');
    const page = await newPage();
    await signInToConsole(page, server, admin);
    await menu(page).getByRole('link', { name: 'Fila de análise' }).click();
    const table = page.getByRole('table', { name: 'Análises abertas' });
    await table.getByRole('cell', { name: 'Cadastro' }).first().waitFor();
    await clean(page, 'console-08-review-queue');
    const [account] = await server.runtime.platform.db.query<{ id: string }>(
      'SELECT id FROM accounts WHERE email = $1',
      [email],
    );
    const [review] = await server.runtime.platform.db.query<{ id: string }>(
      "SELECT id FROM reviews WHERE account_id = $1 AND status = 'open'",
      [account!.id],
    );
    // approval needs a fee plan: with none on the account and no platform default, the dialog asks for one
    const planId = await createFeePlan(server, admin, 'Plano Lojas Novas');
    await page.getByRole('button', { name: `Aprovar a análise ${review!.id}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Aprovar a análise?' });
    await dialog.getByText('escolha um para aprovar').waitFor();
    expect(await dialog.getByRole('button', { name: 'Confirmar' }).isDisabled()).toBe(true);
    await dialog.getByLabel('Plano de tarifas').selectOption({ label: 'Plano Lojas Novas' });
    await clean(page, 'console-08b-review-plan');
    await dialog.getByRole('button', { name: 'Confirmar' }).click();
    await page
      .getByRole('status')
      .getByText(
        'Cadastro de Loja Nova aprovado. O dono da conta foi avisado por e-mail. Plano de tarifas: Plano Lojas Novas.',
      )
      .waitFor();
    const [approved] = await server.runtime.platform.db.query<{ status: string; fee_plan_id: string }>(
      'SELECT status, fee_plan_id::text FROM accounts WHERE id = $1',
      [account!.id],
    );
    expect(approved).toEqual({ status: 'active', fee_plan_id: String(planId) });
    await page
      .getByRole('button', { name: `Aprovar a análise ${review!.id}` })
      .waitFor({ state: 'detached' });

    await menu(page).getByRole('link', { name: 'Operadores' }).click();
    await page.getByLabel('E-mail').fill('novo-operador@gateway.example');
    await page.getByLabel('Papel', { exact: true }).selectOption('finance');
    await page.getByRole('button', { name: 'Convidar' }).click();
    // nothing is sent before "Confirmar"
    await page
      .getByRole('dialog', { name: 'Convidar operador?' })
      .getByRole('button', { name: 'Confirmar' })
      .click();
    const invitee = 'novo-operador@gateway.example';
    await page.getByText(`Convite enviado por e-mail para ${invitee}`).waitFor();
    await page
      .getByRole('table', { name: 'Operadores' })
      .getByRole('cell', { name: invitee, exact: true })
      .waitFor();
    await clean(page, 'console-09-operators');
    // the link went to the invitee's inbox only: the page never shows it
    const first = linkToken(await mailbox.waitFor(invitee, /console de operação/), 'convite');
    expect(await page.content()).not.toContain(first);
    expect(await page.content()).not.toContain('#/convite/');

    // resent: a fresh link by e-mail, the earlier one void
    await page.getByRole('button', { name: `Reenviar convite para ${invitee}` }).click();
    await page
      .getByRole('dialog', { name: `Reenviar o convite para ${invitee}?` })
      .getByRole('button', { name: 'Confirmar' })
      .click();
    await page.getByText(`Novo convite enviado por e-mail para ${invitee}`).waitFor();
    const mails = await waitUntil(
      () => (mailbox.to(invitee).length >= 2 ? mailbox.to(invitee) : undefined),
      30000,
      () => `a second invitation to ${invitee}`,
    );
    const second = linkToken(mails[1]!, 'convite');
    expect(second).not.toBe(first);
    expect(await page.content()).not.toContain(second);
    await clean(page, 'console-10-invitation-resent');
    const old = await call('POST', `${server.url}/api/ops/auth/accept-invitation`, {
      body: { token: first, password: 'uma-senha-de-operador' },
    });
    expect(old.status).toBe(400);
    const fresh = await call('POST', `${server.url}/api/ops/auth/accept-invitation`, {
      body: { token: second, password: 'uma-senha-de-operador' },
    });
    expect(fresh.status).toBe(200);

    // someone changes job, someone leaves: a role changed, an access disabled (never one's own)
    const colleague = await createOperator(server, 'support');
    // a support operator trying an admin's change: refused, and recorded as such
    const tried = await call('POST', `${server.url}/api/ops/operators/${admin.id}/disable`, {
      headers: colleague.ops,
      body: {},
    });
    expect(tried.status).toBe(403);
    await menu(page).getByRole('link', { name: 'Contas' }).click();
    await menu(page).getByRole('link', { name: 'Operadores' }).click();
    const staff = page.getByRole('table', { name: 'Operadores' });
    await staff.getByRole('cell', { name: colleague.email, exact: true }).waitFor();
    await staff
      .getByRole('row', { name: new RegExp(admin.email.replace(/[.]/g, '\\.')) })
      .getByText('Você')
      .waitFor();
    await page.getByRole('button', { name: `Mudar papel de ${colleague.email}` }).click();
    const roleDialog = page.getByRole('dialog', { name: `Mudar o papel de ${colleague.email}?` });
    await roleDialog.getByLabel('Novo papel').selectOption('risk');
    await roleDialog.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByRole('status').getByText(`${colleague.email} agora tem o papel Risco.`).waitFor();
    await clean(page, 'console-11-operator-role');
    await page.getByRole('button', { name: `Desativar ${colleague.email}` }).click();
    await page
      .getByRole('dialog', { name: `Desativar o acesso de ${colleague.email}?` })
      .getByRole('button', { name: 'Desativar' })
      .click();
    await page
      .getByRole('status')
      .getByText(`Acesso de ${colleague.email} desativado: as sessões abertas terminaram.`)
      .waitFor();
    await staff
      .getByRole('row', { name: new RegExp(colleague.email.replace(/[.]/g, '\\.')) })
      .getByText('Desativado')
      .waitFor();
    await page.getByRole('button', { name: `Convidar de novo ${colleague.email}` }).waitFor();
    await clean(page, 'console-12-operator-disabled');
    const gone = await call('GET', `${server.url}/api/ops/auth/me`, { headers: colleague.ops });
    expect(gone.status).toBe(401);
    // the audit log says both in words
    await menu(page).getByRole('link', { name: 'Auditoria' }).click();
    const audit = page.getByRole('table', { name: 'Auditoria' });
    const disabledRow = audit.getByRole('row').filter({ hasText: 'Desativou um operador' }).first();
    await disabledRow.getByText(`Antes: papel: Risco; e-mail: ${colleague.email}; situação: Ativo`).waitFor();
    await disabledRow.getByText('Depois: situação: Desativado').waitFor();
    await audit
      .getByRole('row')
      .filter({ hasText: 'Tentou algo além do seu papel (recusado)' })
      .first()
      .getByText('Nada mudou: o papel do operador não permite isso.')
      .waitFor();
    await clean(page, 'console-13-audit-operators');
  });
});
