/**
 * A store's team in the panel, in Debian's chromium: the owner invites a finance person by e-mail, the
 * invitation is accepted from the e-mailed link, the finance person sees only what the role allows, asks for a
 * withdrawal that needs approval, the owner approves it; then a forgotten password is reset from its link.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.js';
import { launch, shot } from '../support/browser.js';
import { login } from '../support/factories.js';
import { call } from '../support/http.js';
import { fundMerchant } from '../support/ledger.js';
import { linkToken, Mailbox } from '../support/mailbox.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';

let server: TestServer;
let mailbox: Mailbox;
let browser: Browser;
let ownerContext: BrowserContext;
let owner: Page;
let finance: Page;
const OWNER = { email: 'dona@example.com', password: 'senha-da-dona-1' };
const FINANCE = {
  email: 'financeiro@example.com',
  password: 'senha-do-financeiro-1',
  name: 'Fernanda Finanças',
};

beforeAll(async () => {
  mailbox = await Mailbox.start();
  server = await startServer({ env: { SMTP_URL: mailbox.url, PUBLIC_URL: 'http://127.0.0.1:1' } });
  const account = await createAccount(server.runtime.platform.db, { name: 'Loja da Equipe', ...OWNER });
  await fundMerchant(server.runtime.platform.db, account.id, 500_000);
  browser = await launch();
  ownerContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  owner = await ownerContext.newPage();
  finance = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await mailbox?.stop();
});

async function signIn(page: Page, email: string, password: string) {
  await page.goto(`${server.url}/`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Senha').fill(password);
  await page.getByRole('button', { name: 'Entrar' }).click();
  await page.getByRole('navigation', { name: 'Principal' }).waitFor();
}

const menu = (page: Page) => page.getByRole('navigation', { name: 'Principal' }).getByRole('link');

describe('the team in the panel', () => {
  it('the owner invites by e-mail; the link is accepted; the finance person sees only what the role allows', async () => {
    await signIn(owner, OWNER.email, OWNER.password);
    await menu(owner).getByText('Equipe').click();
    await owner.getByRole('heading', { level: 1, name: 'Equipe' }).waitFor();
    await owner.getByLabel('Nome').fill(FINANCE.name);
    await owner.getByLabel('E-mail').fill(FINANCE.email);
    await owner.getByLabel('Papel', { exact: true }).selectOption('finance');
    await owner.getByRole('button', { name: 'Enviar convite' }).click();
    await owner.getByText(`Convite enviado para ${FINANCE.email}`).waitFor();
    await owner.getByRole('cell', { name: FINANCE.email }).waitFor();
    // the only owner can be neither removed nor given another role (the server would refuse: LAST_OWNER)
    const ownerRow = owner.getByRole('row').filter({ has: owner.getByRole('cell', { name: OWNER.email }) });
    expect(await ownerRow.getByRole('button').count()).toBe(0);
    expect(await ownerRow.getByRole('combobox').count()).toBe(0);
    await shot(owner, 'team-01-invited');

    const mail = await mailbox.waitFor(FINANCE.email, /Convite para a equipe de Loja da Equipe/);
    // the link carries PUBLIC_URL; the same page is opened on this test's server
    expect(mail.text).toContain('http://127.0.0.1:1/#/convite/');
    await finance.goto(`${server.url}/#/convite/${linkToken(mail, 'convite')}`);
    await finance.getByRole('heading', { name: 'Aceitar convite' }).waitFor();
    await finance.getByLabel('Nova senha', { exact: true }).fill(FINANCE.password);
    await finance.getByLabel('Repita a nova senha').fill(FINANCE.password);
    await shot(finance, 'team-02-accept');
    await finance.getByRole('button', { name: 'Aceitar e entrar' }).click();
    await finance.getByRole('navigation', { name: 'Principal' }).waitFor();
    const items = await menu(finance).allTextContents();
    expect(items).toEqual(
      expect.arrayContaining(['Visão geral', 'Vendas', 'Saques', 'Extrato', 'Segurança']),
    );
    for (const hidden of ['Integrações', 'Webhooks', 'Equipe']) expect(items).not.toContain(hidden);
    await finance.goto(`${server.url}/#/webhooks`);
    await finance.getByText('não dá acesso a esta página').waitFor();
    // the page is named still, as every page is (axe: page-has-heading-one)
    await finance.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await shot(finance, 'team-03-role-limited');
    // and the server refuses it too
    const cookies = await finance.context().cookies();
    const res = await call('GET', `${server.url}/api/webhook`, {
      headers: { cookie: cookies.map((c) => `${c.name}=${c.value}`).join('; ') },
    });
    expect(res.status).toBe(403);
  });

  it('a withdrawal above the approval rule waits for the owner, who approves it', async () => {
    await owner.goto(`${server.url}/#/equipe`);
    await owner.getByLabel('Valor a partir do qual o saque precisa de aprovação (R$)').fill('500,00');
    await owner.getByRole('button', { name: 'Salvar', exact: true }).click();
    await owner.getByText('Regra salva.').waitFor();

    await finance.goto(`${server.url}/#/saques`);
    await finance.getByRole('heading', { level: 1, name: 'Saques' }).waitFor();
    await finance.getByLabel('Valor (R$)').fill('600,00');
    await finance.getByLabel('Chave PIX').fill('529.982.247-25');
    await finance.getByLabel('Confirme com sua senha').fill(FINANCE.password);
    await finance.getByRole('button', { name: 'Solicitar saque' }).click();
    await finance.getByText('precisa da aprovação de outra pessoa da equipe').waitFor();
    await shot(finance, 'team-04-awaiting');

    await mailbox.waitFor(OWNER.email, /aguardando aprovação/);
    await owner.goto(`${server.url}/#/saques/aprovacoes`);
    await owner.getByRole('heading', { level: 1, name: 'Saques aguardando aprovação' }).waitFor();
    await owner.getByRole('cell', { name: FINANCE.email }).waitFor();
    await owner.getByLabel('Sua senha').fill(OWNER.password);
    await shot(owner, 'team-05-approvals');
    await owner.getByRole('button', { name: 'Aprovar saque' }).click();
    await owner.getByText(/aprovado: enviado para pagamento/).waitFor();
    const [row] = await server.runtime.platform.db.query<{ status: string; approval_decided_by: string }>(
      "SELECT status, approval_decided_by FROM withdrawals WHERE approval_status = 'approved'",
    );
    expect(row!.approval_decided_by).toBe(OWNER.email);
    await waitUntil(async () => {
      const [w] = await server.runtime.platform.db.query<{ status: string }>(
        "SELECT status FROM withdrawals WHERE approval_status = 'approved'",
      );
      return w?.status === 'PROCESSING';
    });
  });

  it("a withdrawal asked for by the owner's own key is not offered to the owner's approval, only declined", async () => {
    const { cookie, csrf } = await login(server, OWNER.email, OWNER.password);
    const key = await call<{ publicKey: string; privateKey: string }>(
      'POST',
      `${server.url}/api/credentials`,
      {
        headers: { cookie, 'x-csrf-token': csrf },
        body: { name: 'Loja virtual', scope: 'full' },
      },
    );
    expect(key.status, key.text).toBe(201);
    const asked = await call<{ id: number }>('POST', `${server.url}/api/public/cashout`, {
      headers: { 'x-api-public-key': key.body.publicKey, 'x-api-private-key': key.body.privateKey },
      body: { amount: 700, pixKey: '52998224725' },
    });
    expect(asked.status, asked.text).toBe(201);
    // the page the owner left open after the last approval: read again
    await owner.goto(`${server.url}/#/saques/aprovacoes`);
    await owner.reload();
    await owner.getByRole('cell', { name: `api_key:${key.body.publicKey}` }).waitFor();
    await owner.getByText('Uma credencial criada por você pediu este saque').waitFor();
    expect(await owner.getByRole('button', { name: 'Aprovar saque' }).count()).toBe(0);
    await owner.getByLabel('Sua senha').fill(OWNER.password);
    await shot(owner, 'team-06-own-key-request');
    await owner.getByRole('button', { name: 'Recusar saque' }).click();
    await owner.getByText(/recusado: o valor voltou ao saldo disponível/).waitFor();
    const [row] = await server.runtime.platform.db.query<{ status: string }>(
      'SELECT status FROM withdrawals WHERE id = $1',
      [asked.body.id],
    );
    expect(row!.status).toBe('CANCELLED');
  });

  it("a developer is offered only what the role may do to the account's keys", async () => {
    const { cookie, csrf } = await login(server, OWNER.email, OWNER.password);
    const invited = await call('POST', `${server.url}/api/users/invitations`, {
      headers: { cookie, 'x-csrf-token': csrf },
      body: { name: 'Davi Dev', email: 'dev@example.com', role: 'developer' },
    });
    expect(invited.status, invited.text).toBe(201);
    const mail = await mailbox.waitFor('dev@example.com', /Convite para a equipe/);
    const dev = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await dev.goto(`${server.url}/#/convite/${linkToken(mail, 'convite')}`);
    await dev.getByLabel('Nova senha', { exact: true }).fill('senha-do-dev-123');
    await dev.getByLabel('Repita a nova senha').fill('senha-do-dev-123');
    await dev.getByRole('button', { name: 'Aceitar e entrar' }).click();
    await dev.getByRole('navigation', { name: 'Principal' }).waitFor();
    await dev.goto(`${server.url}/#/integracoes`);
    const full = await call<{ publicKey: string }[]>('GET', `${server.url}/api/credentials`, {
      headers: { cookie },
    });
    const fullKey = full.body.find((c) => (c as { scope?: string }).scope === 'full')!.publicKey;
    await dev.getByRole('cell', { name: fullKey }).waitFor();
    // a full key is the owner's to change: the developer is offered nothing on it (the server refuses it all)
    for (const action of ['Trocar', 'Restringir', 'Revogar']) {
      expect(await dev.getByRole('button', { name: `${action} a credencial ${fullKey}` }).count()).toBe(0);
    }
    // a key the developer makes, they may change
    await dev.getByLabel('Nome', { exact: true }).fill('Integração do dev');
    await dev.getByRole('button', { name: 'Gerar credencial' }).click();
    const made = await waitUntil(async () => {
      const list = await call<{ publicKey: string; name: string }[]>('GET', `${server.url}/api/credentials`, {
        headers: { cookie },
      });
      return list.body.find((c) => c.name === 'Integração do dev');
    });
    await dev.getByRole('button', { name: `Revogar a credencial ${made.publicKey}` }).waitFor();
    await shot(dev, 'team-07-developer-keys');
  });

  it('a forgotten password is reset from the e-mailed link', async () => {
    const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await page.goto(`${server.url}/`);
    await page.getByRole('link', { name: 'Esqueci minha senha' }).click();
    // the login form has an "E-mail" field too: the reset form first, or the address may go to the login's
    await page.getByRole('heading', { level: 1, name: 'Esqueci minha senha' }).waitFor();
    await page.getByLabel('E-mail').fill(FINANCE.email);
    await page.getByRole('button', { name: 'Enviar link' }).click();
    await page.getByText('Se houver um acesso com este e-mail').waitFor();
    await shot(page, 'team-08-forgot');
    const mail = await mailbox.waitFor(FINANCE.email, /Redefinição de senha/);
    await page.goto(`${server.url}/#/nova-senha/${linkToken(mail, 'nova-senha')}`);
    await page.getByLabel('Nova senha', { exact: true }).fill('outra-senha-boa-2');
    await page.getByLabel('Repita a nova senha').fill('outra-senha-boa-2');
    await page.getByRole('button', { name: 'Salvar nova senha' }).click();
    await page.getByText('Senha alterada. Entre com a nova senha.').waitFor();
    // the session opened with the old password ended
    await finance.reload();
    await finance.getByRole('button', { name: 'Entrar' }).waitFor();
    await signIn(page, FINANCE.email, 'outra-senha-boa-2');
    await shot(page, 'team-09-signed-in-again');
  });
});
