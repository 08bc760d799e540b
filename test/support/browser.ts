import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's chromium (.ci/run installs it); never a browser download. */
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
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
