/**
 * An operator's first day, walked as a new user would in Debian's chromium against a real server: opens the
 * invitation, sets a password, enrols the authenticator by reading the QR code on the screen (a screenshot of it
 * decoded with zbarimg), logs in; finds a shop that signed itself up in the Fila de análise, approves it choosing
 * a fee plan in the dialog; suspends it with a reason; the shop's owner logs in and reads that reason, on a desk
 * and on a phone. Every page axe-clean; screenshots in test-output/screenshots (journey-operator-*).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
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
const dir = mkdtempSync(path.join(tmpdir(), 'journey-operator-'));

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

/** What zbarimg reads in a screenshot of the page's QR code, as a phone's camera would. */
async function scanQr(page: Page): Promise<string> {
  const file = path.join(dir, 'qr-screenshot.png');
  await page.getByRole('img', { name: /QR code/ }).screenshot({ path: file });
  return execFileSync('zbarimg', ['--quiet', '--raw', file], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'], // zbarimg complains of a missing D-Bus on stderr
  }).trim();
}

const SHOP = {
  name: 'Floricultura Ipê',
  email: `ipe-${Date.now()}@example.com`,
  password: 'senha-da-floricultura',
};
const REASON = 'Contrato social ilegível';

describe("an operator's journey", () => {
  it('enrol by QR → approve with a fee plan → suspend with a reason → the merchant reads it', async () => {
    // a shop has signed itself up; finance keeps a fee plan (neither is this operator's doing)
    const signup = await call('POST', `${server.url}/api/signup`, {
      body: {
        name: SHOP.name,
        legalName: 'Floricultura Ipê Ltda',
        document: '11222333000181',
        email: SHOP.email,
        password: SHOP.password,
        phone: '11987654321',
        address: {
          street: 'Rua das Flores',
          number: '7',
          district: 'Centro',
          city: 'Recife',
          state: 'PE',
          zipCode: '50000-000',
        },
      },
    });
    expect(signup.status, signup.text).toBe(201);
    const finance = await createOperator(server, 'finance');
    const plan = await call('POST', `${server.url}/api/ops/fee-plans`, {
      headers: finance.ops,
      body: {
        name: 'Pequenas lojas',
        pixPercent: '0.99',
        pixFixedCents: 0,
        boletoFixedCents: 249,
        creditPercent: { '1': '3.49', '2-6': '4.29', '7-12': '4.99' },
        debitPercent: '1.99',
        anticipationMonthlyPercent: '2.99',
        cashoutFixedCents: 0,
      },
    });
    expect(plan.status, plan.text).toBe(201);

    // the invitation: a password, then the authenticator enrolled from the QR code on the screen
    await inFreshTotpStep();
    const invited = await inviteOperator(server, 'admin');
    const page = await (
      await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'pt-BR' })
    ).newPage();
    await page.goto(`${server.url}/ops#/convite/${invited.token}`);
    await page.getByLabel('Senha (mínimo de 8 caracteres)').waitFor();
    await clean(page, 'journey-operator-01-invitation');
    await page.getByLabel('Senha (mínimo de 8 caracteres)').fill('senha-do-operador');
    await page.getByRole('button', { name: 'Continuar' }).click();
    await page.getByRole('img', { name: /QR code/ }).waitFor();
    await clean(page, 'journey-operator-02-qr');
    const uri = await scanQr(page);
    expect(uri).toMatch(/^otpauth:\/\/totp\//);
    expect(decodeURIComponent(uri)).toContain(invited.email);
    const secret = new URL(uri).searchParams.get('secret')!;
    expect(secret).toBe((await page.locator('code.secret').textContent())!.trim());
    const code = totpCode(secret, 0);
    await page.getByLabel('Código do autenticador').fill(code);
    await page.getByRole('button', { name: 'Concluir cadastro' }).click();
    await page.getByText('Cadastro concluído.').waitFor();
    await clean(page, 'journey-operator-03-enrolled');

    // the first login, with the code the authenticator shows
    await page.getByLabel('E-mail').fill(invited.email);
    await page.getByLabel('Senha').fill('senha-do-operador');
    await page.getByLabel('Código do autenticador').fill(code);
    await page.getByRole('button', { name: 'Entrar' }).click();
    const menu = page.getByRole('navigation', { name: 'Principal' });
    await menu.waitFor();

    // the shop waits in the review queue; its page; approval asks for a fee plan
    await menu.getByRole('link', { name: 'Fila de análise' }).click();
    const queue = page.getByRole('table', { name: 'Análises abertas' });
    await queue.getByRole('link', { name: SHOP.name }).waitFor();
    await clean(page, 'journey-operator-04-queue');
    await queue.getByRole('link', { name: SHOP.name }).click();
    await page.getByRole('heading', { level: 1, name: new RegExp(SHOP.name) }).waitFor();
    await clean(page, 'journey-operator-05-account');
    await page.getByRole('button', { name: 'Aprovar cadastro' }).click();
    const approve = page.getByRole('dialog', { name: 'Aprovar o cadastro?' });
    await approve.getByLabel('Plano de tarifas').selectOption({ label: 'Pequenas lojas' });
    await clean(page, 'journey-operator-06-approve-dialog');
    await approve.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByRole('status').getByText('Cadastro aprovado.').waitFor();
    await page.getByRole('status').getByText('Plano de tarifas: Pequenas lojas.').waitFor();
    await clean(page, 'journey-operator-07-approved');
    const [approved] = await server.runtime.platform.db.query<{ status: string }>(
      'SELECT status FROM accounts WHERE email = $1',
      [SHOP.email],
    );
    expect(approved!.status).toBe('active');

    // suspension with a reason, confirmed and announced
    await page.getByRole('button', { name: 'Suspender conta' }).click();
    const suspend = page.getByRole('dialog', { name: 'Suspender a conta?' });
    await suspend.getByLabel(/^Motivo/).fill(REASON);
    await clean(page, 'journey-operator-08-suspend-dialog');
    await suspend.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByRole('status').getByText('Conta suspensa.').waitFor();
    await clean(page, 'journey-operator-09-suspended');

    // the owner reads the reason, on a desk and on a phone
    for (const [width, height, name] of [
      [1280, 900, 'desktop'],
      [390, 844, 'phone'],
    ] as const) {
      const panel = await (
        await browser.newContext({ viewport: { width, height }, locale: 'pt-BR' })
      ).newPage();
      await panel.goto(`${server.url}/`);
      await panel.getByLabel('E-mail').fill(SHOP.email);
      await panel.getByLabel('Senha').fill(SHOP.password);
      await panel.getByRole('button', { name: 'Entrar' }).click();
      await panel.getByText('Sua conta está suspensa').waitFor();
      await panel.getByText(`Motivo: ${REASON}.`).waitFor();
      await clean(panel, `journey-operator-10-merchant-reason-${name}`);
      await panel.context().close();
    }
  }, 180_000); // one journey: an operator's pages, then the merchant's at two widths
});
