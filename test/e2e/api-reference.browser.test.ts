/**
 * The API reference page (`/docs`, Swagger UI served by the gateway itself) as an integrator opens it, in Debian's
 * chromium: the document's routes are listed, and the page's content security policy blocks nothing it needs
 * (every block is reported to the browser's console as an error).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, shot } from '../support/browser.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startServer({ workers: false });
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('GET /docs in a browser', () => {
  it('lists the routes, with nothing blocked by its content security policy and no console error', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    // in the page (a script of its own: this file has no DOM types)
    await page.addInitScript({
      content: `document.addEventListener('securitypolicyviolation', (e) =>
        console.error('blocked by ' + e.violatedDirective + ': ' + e.sourceFile + ':' + e.lineNumber));`,
    });
    await page.goto(`${server.url}/docs/`);
    await page.getByRole('heading', { name: /Payment gateway API/ }).waitFor({ timeout: 30_000 });
    await page.getByText('/api/public/balance', { exact: true }).first().waitFor();
    await shot(page, 'api-reference');
    expect(errors).toEqual([]);
  });
});
