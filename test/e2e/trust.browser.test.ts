/**
 * The panel's trust controls in Debian's chromium against a real server: key scope, expiry and roll, webhook
 * health (disabled banner, re-enable, test event, secret rotation), two-factor setup from the QR code's secret,
 * a two-factor login, and the audit log. Screenshots in test-output/screenshots.
 */
import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.js';
import { launch, shot } from '../support/browser.js';
import { call } from '../support/http.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let browser: Browser;
let page: Page;
let hooks: Receiver;
const EMAIL = 'seguranca@example.com';
const PASSWORD = 'senha-segura-1';

beforeAll(async () => {
  server = await startServer();
  await createAccount(server.runtime.platform.db, { name: 'Loja Segura', email: EMAIL, password: PASSWORD });
  hooks = await startReceiver();
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
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

const codeAt = (secret: string, offsetSteps: number) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({
    timestamp: Date.now() + offsetSteps * 30_000,
  });

async function sessionHeaders(): Promise<Record<string, string>> {
  const cookies = await page.context().cookies();
  return { cookie: cookies.map((c) => `${c.name}=${c.value}`).join('; ') };
}

describe('trust controls in the panel', () => {
  it('creates a named read-only key, rolls it with no grace period, and the old pair stops working', async () => {
    await page.goto(`${server.url}/`);
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Senha').fill(PASSWORD);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await go('Integrações');
    await page.getByLabel('Nome').fill('ERP');
    await page.getByLabel('Permissão').selectOption('read');
    await page.getByRole('button', { name: 'Gerar credencial' }).click();
    await page.getByTestId('secret-value').waitFor();
    const old = {
      'x-api-public-key': (await page.locator('.card p code').first().textContent())!,
      'x-api-private-key': (await page.getByTestId('secret-value').textContent())!,
    };
    const row = page.getByRole('table', { name: 'Credenciais' }).getByRole('row').filter({ hasText: 'ERP' });
    await expect.poll(() => row.textContent()).toContain('Somente leitura');
    // the next key starts from the defaults: not silently read-only like the last one
    expect(await page.getByLabel('Permissão').inputValue()).toBe('full');
    expect((await call('GET', `${server.url}/api/public/balance`, { headers: old })).status).toBe(200);

    await row.getByRole('button', { name: /Trocar a credencial/ }).click();
    await page.getByLabel('Período de transição').selectOption('0');
    await page.getByRole('button', { name: 'Confirmar troca' }).click();
    await expect
      .poll(() => page.getByTestId('secret-value').textContent())
      .not.toBe(old['x-api-private-key']);
    await shot(page, 'trust-01-key-rolled');
    const fresh = {
      'x-api-public-key': (await page.locator('.card p code').first().textContent())!,
      'x-api-private-key': (await page.getByTestId('secret-value').textContent())!,
    };
    expect((await call('GET', `${server.url}/api/public/balance`, { headers: old })).status).toBe(401);
    expect((await call('GET', `${server.url}/api/public/balance`, { headers: fresh })).status).toBe(200);
  });

  it('shows a disabled webhook with its reason, re-enables it, sends a test event and rotates its secret', async () => {
    const created = await call<{ id: number; secret: string }>('POST', `${server.url}/api/webhook`, {
      headers: { ...(await sessionHeaders()), 'x-csrf-token': await csrf() },
      body: { webhookUrl: `${hooks.url}/h`, events: ['*'] },
    });
    expect(created.status).toBe(201);
    await call('PUT', `${server.url}/api/webhook/${created.body.id}`, {
      headers: { ...(await sessionHeaders()), 'x-csrf-token': await csrf() },
      body: { status: 'disabled' },
    });
    await go('Webhooks');
    await page.getByRole('button', { name: `Abrir o webhook ${hooks.url}/h` }).click();
    const banner = page.locator('.banner');
    await expect.poll(() => banner.textContent()).toContain('Webhook desativado');
    await shot(page, 'trust-02-webhook-disabled');
    await page.getByRole('button', { name: 'Reativar webhook' }).click();
    await expect.poll(() => page.getByRole('table', { name: 'Webhooks' }).textContent()).toContain('Ativo');

    await page.getByRole('button', { name: `Abrir o webhook ${hooks.url}/h` }).click();
    await page.getByRole('button', { name: 'Enviar evento de teste' }).click();
    const [test] = await hooks.waitFor(1);
    expect(JSON.parse(test!.body.toString('utf8'))).toMatchObject({
      type: 'TEST',
      webhookId: created.body.id,
    });
    // the delivery list shows it delivered by itself, without "Atualizar"
    await page
      .getByRole('table', { name: 'Entregas' })
      .getByRole('cell', { name: 'Entregue' })
      .first()
      .waitFor();

    await page.getByLabel('O segredo atual continua assinando por').selectOption('24');
    // a double click rotates once: a second rotation would drop the secret the receiver holds at once
    let rotations = 0;
    page.on('request', (r) => {
      if (r.method() === 'POST' && /\/rotate-secret$/.test(new URL(r.url()).pathname)) rotations++;
    });
    await page.getByRole('button', { name: 'Trocar segredo' }).dblclick();
    await expect.poll(() => page.getByTestId('secret-value').textContent()).toMatch(/^whsec_/);
    expect(rotations).toBe(1);
    expect(await page.getByTestId('secret-value').textContent()).not.toBe(created.body.secret);
    await shot(page, 'trust-03-webhook-health');
  });

  it('sets up two-factor login from the QR code’s secret, then logs in with a code; the audit log shows it', async () => {
    // codes of the previous, current and next 30 s step are accepted: keep well inside one step
    const into = (Date.now() / 1000) % 30;
    if (into > 18) await new Promise((r) => setTimeout(r, (31 - into) * 1000));
    await go('Segurança');
    await page.getByRole('button', { name: 'Configurar aplicativo autenticador' }).click();
    const qr = page.getByRole('img', { name: 'QR code da verificação em duas etapas' });
    await qr.waitFor();
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    const secret = (await page.getByTestId('secret-value').textContent())!;
    await shot(page, 'trust-04-totp-setup');
    await page.getByLabel('Código de 6 dígitos do aplicativo').fill(codeAt(secret, -1));
    await page.getByRole('button', { name: 'Ativar' }).click();
    await page.getByText('Verificação em duas etapas ativada.').waitFor();
    const log = page.getByRole('table', { name: 'Registro de atividades' });
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Segurança' }).waitFor();
    await expect.poll(() => log.textContent()).toContain('Verificação em duas etapas ativada');
    expect(await log.textContent()).toContain('Credencial trocada');
    // targets in words: "Webhook 1", not the stored "webhook:1"
    expect(await log.textContent()).toMatch(/Webhook \d+/);
    expect(await log.textContent()).not.toMatch(/webhook:\d/);
    await shot(page, 'trust-05-audit-log');

    await go('Saques');
    expect(await page.getByLabel('Código do autenticador').count()).toBe(1);

    await page.getByRole('button', { name: 'Sair' }).click();
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Senha').fill(PASSWORD);
    await page.getByRole('button', { name: 'Entrar' }).click();
    // the code field takes the focus; a wrong code is called a wrong code, not wrong credentials
    await page.getByLabel('Código de verificação').waitFor();
    // (the focus is moved once the field has rendered: asked until it has)
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('totp');
    await page.getByLabel('Código de verificação').fill(codeAt(secret, 20));
    await page.getByRole('button', { name: 'Entrar' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('Código do autenticador inválido ou já usado. Aguarde o próximo código e tente de novo.');
    // refused after a click too: the field starts over with the focus, for the next code
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('totp');
    expect(await page.getByLabel('Código de verificação').inputValue()).toBe('');
    await page.getByLabel('Código de verificação').fill(codeAt(secret, 0));
    await shot(page, 'trust-06-login-code');
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('button', { name: 'Sair' }).waitFor();
    expect(await page.getByRole('heading', { level: 1, name: 'Saques' }).count()).toBe(1);
  });

  it('fits a 390 px phone on the new pages', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await phone.context().addCookies(await page.context().cookies());
    await phone.goto(`${server.url}/#/seguranca`);
    await phone.getByRole('heading', { level: 1, name: 'Segurança' }).waitFor();
    const overflow = await phone.evaluate<number>(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(phone, 'trust-phone-security');
    await phone.close();
  });
});

async function csrf(): Promise<string> {
  const me = await call<{ csrfToken: string }>('GET', `${server.url}/api/auth/me`, {
    headers: await sessionHeaders(),
  });
  return me.body.csrfToken;
}
