/**
 * A charge's QR image read as a payer's phone reads it: the `pixQrCode` of a PIX charge and of a boleto, as the API
 * answers them, shown by Debian's chromium at a phone screen's size, a screenshot of it decoded with zbarimg: the
 * code read back is the charge's copy-and-paste code, exactly.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boletoInput } from '../boletos/fixtures.js';
import { launch } from '../support/browser.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { saleInput } from './fixtures.js';

let server: TestServer;
let merchant: TestMerchant;
let browser: Browser;
const dir = mkdtempSync(path.join(tmpdir(), 'qr-scan-'));

beforeAll(async () => {
  server = await startServer({ workers: false });
  merchant = await createMerchant(server);
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What zbarimg reads in a screenshot of the image at 300 × 300 CSS pixels. */
async function scan(dataUri: string, name: string): Promise<string> {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  try {
    await page.setContent(`<img alt="QR" src="${dataUri}" width="300" height="300">`);
    const file = path.join(dir, `${name}.png`);
    await page.getByRole('img', { name: 'QR' }).screenshot({ path: file });
    return execFileSync('zbarimg', ['--quiet', '--raw', file], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'], // zbarimg complains of a missing D-Bus on stderr
    }).trim();
  } finally {
    await page.close();
  }
}

describe("a charge's QR image", () => {
  it('reads back to the PIX charge’s code', async () => {
    const res = await call<{ pixKey: string; pixQrCode: string }>('POST', `${server.url}/api/transactions`, {
      headers: merchant.keys,
      body: saleInput({ amount: 123_456 }),
    });
    expect(res.status, res.text).toBe(201);
    expect(await scan(res.body.pixQrCode, 'pix')).toBe(res.body.pixKey);
  });

  it('reads back to the boleto’s Pix code', async () => {
    const res = await call<{ boleto: { pixCopyPaste: string; pixQrCode: string } }>(
      'POST',
      `${server.url}/api/transactions`,
      { headers: merchant.keys, body: boletoInput() },
    );
    expect(res.status, res.text).toBe(201);
    expect(await scan(res.body.boleto.pixQrCode, 'boleto')).toBe(res.body.boleto.pixCopyPaste);
  });
});
