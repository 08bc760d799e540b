/**
 * The console guides an operator, in Debian's chromium: an invited admin enrols the authenticator by reading
 * the QR code the page draws (decoded here with zbarimg: it is the otpauth URI of the secret shown beside it)
 * and logs in with the very code that enrolled it; approves a sign-up that has no fee plan by choosing one in
 * the approval dialog; suspends it and holds its withdrawals, each with a reason, confirmed first and announced
 * after; reads the audit log in Portuguese with the account named; sees TPV and fees per day as a chart. The
 * merchant's panel then shows both reasons, at 1280 px and at 390 px. Every page axe-clean, screenshots kept.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../support/axe.js';
import { launch, shot } from '../support/browser.js';
import { call } from '../support/http.js';
import { createOperator, inFreshTotpStep, inviteOperator, totpCode } from '../support/operators.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let browser: Browser;
const dir = mkdtempSync(path.join(tmpdir(), 'console-guides-'));

beforeAll(async () => {
  server = await startServer({ env: { SIGNUP: 'on' } });
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function clean(page: Page, name: string): Promise<void> {
  await shot(page, name);
  expect(await seriousViolations(page), name).toEqual([]);
}

/** What zbarimg reads in a PNG given as a data: URL. */
function readQr(dataUrl: string): string {
  const [, base64] = /^data:image\/png;base64,(.+)$/.exec(dataUrl) ?? [];
  expect(base64, 'the QR code is a PNG drawn in the page').toBeDefined();
  const file = path.join(dir, 'totp-qr.png');
  writeFileSync(file, Buffer.from(base64!, 'base64'));
  return execFileSync('zbarimg', ['--quiet', '--raw', file], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'], // zbarimg complains of a missing D-Bus on stderr
  }).trim();
}

const SHOP = {
  name: 'Ateliê Guiado',
  email: `guiado-${Date.now()}@example.com`,
  password: 'senha-bem-longa',
};

describe('the console guides the operator, and the merchant hears the reasons', () => {
  it('enrol by QR code → approve with a plan chosen → suspend and hold with reasons → the panel shows them', async () => {
    const signup = await call<{ user: { accountId?: number } }>('POST', `${server.url}/api/signup`, {
      body: {
        name: SHOP.name,
        legalName: 'Ateliê Guiado Ltda',
        document: '11222333000181',
        email: SHOP.email,
        password: SHOP.password,
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
    const [account] = await server.runtime.platform.db.query<{ id: string }>(
      'SELECT id FROM accounts WHERE email = $1',
      [SHOP.email],
    );
    const accountId = Number(account!.id);
    const finance = await createOperator(server, 'finance');
    const plan = await call<{ id: number; name: string }>('POST', `${server.url}/api/ops/fee-plans`, {
      headers: finance.ops,
      body: {
        name: 'Ateliês 2026',
        pixPercent: '0.99',
        pixFixedCents: 0,
        boletoFixedCents: 249,
        creditPercent: { '1': '3.49', '2-6': '4.29', '7-12': '4.99' },
        debitPercent: '1.99',
        anticipationMonthlyPercent: '2.99',
        cashoutFixedCents: 0,
      },
    });
    expect(plan.status).toBe(201);

    // enrolment: the QR code is the otpauth URI of the secret printed beside it
    await inFreshTotpStep();
    const invited = await inviteOperator(server, 'admin');
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${server.url}/ops#/convite/${invited.token}`);
    await page.getByLabel('Senha (mínimo de 8 caracteres)').fill('senha-do-operador');
    await page.getByRole('button', { name: 'Continuar' }).click();
    const qr = page.getByRole('img', { name: /QR code/ });
    await qr.waitFor();
    const secret = (await page.locator('code.secret').textContent())!.trim();
    const uri = readQr((await qr.getAttribute('src'))!);
    expect(uri).toMatch(/^otpauth:\/\/totp\//);
    expect(new URL(uri).searchParams.get('secret')).toBe(secret);
    expect(decodeURIComponent(uri)).toContain(invited.email);
    await clean(page, 'console-guides-01-qr');
    const code = totpCode(secret, 0);
    await page.getByLabel('Código do autenticador').fill(code);
    await page.getByRole('button', { name: 'Concluir cadastro' }).click();
    await page.getByText('Cadastro concluído.').waitFor();

    // the first login, at once, with the same code the app still shows
    await page.getByLabel('E-mail').fill(invited.email);
    await page.getByLabel('Senha').fill('senha-do-operador');
    await page.getByLabel('Código do autenticador').fill(code);
    await page.getByRole('button', { name: 'Entrar' }).click();
    const menu = page.getByRole('navigation', { name: 'Principal' });
    await menu.waitFor();

    // approval of an account with no plan, and no FEE_PLAN_DEFAULT: the dialog asks for one before anything is
    // tried (it offered a platform default that did not exist, and asked only after a refused try)
    await page.goto(`${server.url}/ops#/contas/${accountId}`);
    await page.getByRole('heading', { level: 1, name: new RegExp(SHOP.name) }).waitFor();
    await page.getByRole('button', { name: 'Aprovar cadastro' }).click();
    const approve = page.getByRole('dialog', { name: 'Aprovar o cadastro?' });
    await approve.getByLabel('Plano de tarifas').waitFor();
    await approve.getByText(/a plataforma não tem plano padrão: escolha um para aprovar/).waitFor();
    // its documents never sent: the operator is told which, before approving
    await approve.getByText(/Faltam documentos do cadastro: .*Comprovante de endereço/).waitFor();
    await approve.getByRole('option', { name: 'Escolha um plano' }).waitFor({ state: 'attached' });
    expect(await approve.getByRole('option', { name: /Plano padrão da plataforma/ }).count()).toBe(0);
    expect(await approve.getByRole('button', { name: 'Confirmar' }).isDisabled()).toBe(true);
    const [pending] = await server.runtime.platform.db.query<{ status: string }>(
      'SELECT status FROM accounts WHERE id = $1',
      [accountId],
    );
    expect(pending!.status).toBe('pending_review');
    await clean(page, 'console-guides-02-approve-needs-plan');
    await approve.getByLabel('Plano de tarifas').selectOption({ label: 'Ateliês 2026' });
    await approve.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByRole('status').getByText('Cadastro aprovado.').waitFor();
    await page.getByRole('status').getByText('Plano de tarifas: Ateliês 2026.').waitFor();
    await page.getByRole('button', { name: 'Suspender conta' }).waitFor();
    await clean(page, 'console-guides-03-approved');

    // suspension and payout hold, each with its reason, confirmed and announced
    await page.getByRole('button', { name: 'Suspender conta' }).click();
    const suspend = page.getByRole('dialog', { name: 'Suspender a conta?' });
    await suspend.getByLabel(/^Motivo/).fill('Documentos vencidos');
    await suspend.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByRole('status').getByText('Conta suspensa.').waitFor();
    await page.getByRole('button', { name: 'Reter saques' }).click();
    const hold = page.getByRole('dialog', { name: 'Reter os saques da conta?' });
    await hold.getByLabel(/^Motivo/).fill('Muitos estornos');
    await clean(page, 'console-guides-04-hold-dialog');
    await hold.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByRole('status').getByText('Saques retidos para análise.').waitFor();
    await page.getByText('Retidos para análise — Muitos estornos').waitFor();

    // the audit log in Portuguese, naming the account
    await menu.getByRole('link', { name: 'Auditoria' }).click();
    const audit = page.getByRole('table', { name: 'Auditoria' });
    for (const text of [
      'Aprovou o cadastro',
      'Suspendeu a conta',
      'Reteve os saques',
      'Aplicou um plano de tarifas à conta',
      'Criou um plano de tarifas',
    ]) {
      await audit.getByRole('cell', { name: text, exact: true }).first().waitFor();
    }
    await audit.getByRole('link', { name: SHOP.name }).first().waitFor();
    const whatColumn = await audit.locator('tbody tr td:nth-child(3)').allTextContents();
    expect(whatColumn.length).toBeGreaterThan(0);
    for (const what of whatColumn) expect(what).not.toMatch(/^[a-z_-]+(\.[a-z_-]+)?$/);
    // what each action changed, before and after (the suspension: the status it left and the one it set)
    await audit
      .getByRole('cell', { name: /Depois: .*situação: Suspensa/ })
      .first()
      .waitFor();
    await audit
      .getByRole('cell', { name: /Antes: situação: Ativa/ })
      .first()
      .waitFor();
    // in words, never the recorded codes or JSON
    const changes = (await audit.locator('tbody tr td:nth-child(6)').allTextContents()).join(' ');
    expect(changes).not.toMatch(/[{}]|\bstatus:|AWAITING_REVIEW|suspended/);
    await clean(page, 'console-guides-05-audit');

    // Relatórios: TPV and fees per day as a chart, beside the table
    await menu.getByRole('link', { name: 'Relatórios' }).click();
    const chart = page.locator('figure.chart');
    await chart.getByText('TPV:').waitFor();
    await chart.getByText('Tarifas recebidas:').waitFor();
    await page.getByRole('table', { name: /TPV e tarifas recebidas por dia/ }).waitFor({ state: 'attached' });
    await clean(page, 'console-guides-06-reports-chart');

    // the merchant reads both reasons, on a desk and on a phone
    for (const [width, height, name] of [
      [1280, 900, 'desktop'],
      [390, 844, 'phone'],
    ] as const) {
      const panel = await (await browser.newContext({ viewport: { width, height } })).newPage();
      await panel.goto(`${server.url}/`);
      await panel.getByLabel('E-mail').fill(SHOP.email);
      await panel.getByLabel('Senha').fill(SHOP.password);
      await panel.getByRole('button', { name: 'Entrar' }).click();
      await panel.getByText('Sua conta está suspensa').waitFor();
      await panel.getByText('Motivo: Documentos vencidos.').waitFor();
      await panel.getByText('Seus saques estão retidos para análise').waitFor();
      await panel.getByText('Motivo: Muitos estornos.').waitFor();
      await clean(panel, `console-guides-07-merchant-reasons-${name}`);
      await panel.context().close();
    }
  }, 240_000); // one long journey: two roles, eight pages, two viewports
});
