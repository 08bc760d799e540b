/**
 * The operators' console on a phone (390 px), for the operator on call: every page of an admin's menu, with
 * an account, a sale, a withdrawal and a dispute to show, fits the screen's width (nothing wider than it, so no
 * sideways scroll) and no choice is cut. Screenshots in test-output/screenshots (console-phone-*).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDispute } from '../disputes/fixtures.js';
import { moveTo, sandboxSale } from '../sales/fixtures.js';
import { seriousViolations } from '../support/axe.js';
import { cutChoices, launch, shot } from '../support/browser.js';
import { createCashout } from '../support/cashouts.js';
import { createMerchant } from '../support/factories.js';
import { fundMerchant } from '../support/ledger.js';
import { createOperator, signInToConsole } from '../support/operators.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startServer();
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Elements of the page whose right edge passes the screen's (each as its tag, class and first words). */
function overflowing(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const width = document.documentElement.clientWidth;
    const out = [];
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= width + 1) continue;
      // inside a box that scrolls sideways on purpose (a wide table's wrapper) it is reachable; inside one that
      // clips on purpose (a screen reader's text) it is not shown
      let kept = false;
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        const o = getComputedStyle(p).overflowX;
        if (o === 'hidden' || o === 'clip') { kept = true; break; }
        if ((o === 'auto' || o === 'scroll') && p.getBoundingClientRect().right <= width + 1) { kept = true; break; }
      }
      if (!kept) out.push(el.tagName.toLowerCase() + '.' + el.className + ' ' + (el.textContent || '').trim().slice(0, 40));
    }
    return out.slice(0, 10);
  })()`);
}

describe("the operators' console on a phone", () => {
  it('every page of the menu fits 390 px, its choices whole', async () => {
    const m = await createMerchant(server, 'Padaria do Zé com um nome bem comprido Ltda');
    await fundMerchant(server.runtime.platform.db, m.accountId, 100_000);
    await createCashout(server.url, m, 150);
    const sale = await sandboxSale(server, m, {});
    await moveTo(server, m, sale.id, 'PAGO');
    expect((await openDispute(server, m, sale.uuid, { kind: 'med' })).status).toBe(201);
    const admin = await createOperator(server, 'admin');
    await createOperator(server, 'support'); // Operadores shows another's role and access to change
    const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await signInToConsole(page, server, admin);
    const menu = page.getByRole('navigation', { name: 'Principal' });
    const names = (await menu.getByRole('link').allTextContents()).map((t) => t.trim());
    expect(names.length).toBeGreaterThan(4);
    for (const [i, name] of names.entries()) {
      await menu.getByRole('link', { name, exact: true }).click();
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await page.waitForLoadState('networkidle');
      await shot(page, `console-phone-${String(i + 1).padStart(2, '0')}`);
      expect(await overflowing(page), name).toEqual([]);
      expect(await cutChoices(page), name).toEqual([]);
      expect(await seriousViolations(page), name).toEqual([]);
    }
    // a dispute names its sale, as the account's page does
    await menu.getByRole('link', { name: 'Contestações', exact: true }).click();
    await page
      .getByRole('table', { name: 'Contestações' })
      .getByText(sale.uuid.slice(0, 8), { exact: true })
      .waitFor();
    // and an account's own page, with everything an admin may do to it
    await menu.getByRole('link', { name: 'Contas', exact: true }).click();
    await page.getByRole('link', { name: `#${m.accountId}` }).click();
    await page.getByRole('heading', { name: 'Padaria do Zé com um nome bem comprido Ltda' }).waitFor();
    await page.waitForLoadState('networkidle');
    await shot(page, 'console-phone-account');
    expect(await overflowing(page)).toEqual([]);
    expect(await cutChoices(page)).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
  }, 180_000);
});
