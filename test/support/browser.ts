import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

/**
 * Debian's chromium in its headless shell (package chromium-headless-shell, which .ci/run installs; what Playwright
 * itself runs headless), else Debian's chromium; never a browser download. The shell renders the same pages for
 * about 60 % of the full browser's CPU (docs/performance.md, "The test suite's own time").
 */
export const CHROMIUM =
  process.env.CHROMIUM_PATH ||
  ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((file) => existsSync(file)) ||
  '/usr/bin/chromium';
/** Screenshots of every page the browser tests visit (gitignored). */
export const SHOTS = path.resolve(import.meta.dirname, '../../test-output/screenshots');

export async function launch(): Promise<Browser> {
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/**
 * The page's visible choices (`select`s in `main`) whose chosen option is cut: its text, with room for the arrow,
 * wider than the box. Each as "id: text".
 */
export function cutChoices(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`[...document.querySelectorAll('main select')]
    .filter((s) => s.offsetParent !== null)
    .filter((s) => {
      const ctx = document.createElement('canvas').getContext('2d');
      ctx.font = getComputedStyle(s).font;
      return ctx.measureText(s.selectedOptions[0]?.text ?? '').width + 40 > s.clientWidth;
    })
    .map((s) => s.id + ': ' + (s.selectedOptions[0]?.text ?? ''))`);
}

/**
 * The page's visible text fields (`input`s in `main`) whose value, or placeholder when empty, is wider than the
 * box: read cut as typed. Each as "id: text".
 */
export function cutFields(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`[...document.querySelectorAll('main input')]
    .filter((i) => i.offsetParent !== null && !['radio', 'checkbox', 'date', 'file'].includes(i.type))
    .filter((i) => {
      const ctx = document.createElement('canvas').getContext('2d');
      const style = getComputedStyle(i);
      ctx.font = style.font;
      const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
      return ctx.measureText(i.value || i.placeholder || '').width + padding > i.clientWidth;
    })
    .map((i) => i.id + ': ' + (i.value || i.placeholder))`);
}
