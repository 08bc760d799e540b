import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fences, MARKERS, PAGES, Page, ROOT, SHELLS, title } from '../support/doc-pages.js';

/**
 * Executable docs: every shell block (```sh, ```bash, ```shell) of README.md and docs/*.md is run, page by page and
 * in the page's order, against a fresh gateway started as the README says (`npm start`: `gateway serve` of the built
 * bundle, on a fresh DATA_DIR, so the embedded PostgreSQL; a page in OWN_GATEWAY starts its own in a block, on that
 * fresh DATA_DIR and port), with no setting the page does not give: every setting the README's settings table
 * names is taken out of the environment. The liberties taken, and only these: DATA_DIR is a fresh folder (the
 * default `./data` is the checkout's own), and the default port 3000 is a free one (a page's `localhost:3000` is
 * read as it).
 *
 * The fence's info string says how a block runs (the convention README.md states under "Tests"):
 * - ```sh             run to completion; it must exit 0, print no error body (`"success":false`, an `"error":`
 *                     code or object), and print every answer its comments show (a comment line that is a JSON
 *                     object alone, a note in parentheses after it allowed: `# {"available":0,…}   (cents)`);
 * - ```sh background  started and left running (a server, `gateway listen`): ready when the URL its comment names
 *                     answers, or at its first line of output; stopped (SIGTERM) when the page is done;
 * - ```sh manual      not run here: a production host, a service manager, a cloud account, or the test suite
 *                     itself; the page says why next to it. Each is listed as a skipped test, by its place.
 * `npx gateway …` runs the built bundle (dist/bundle/main.mjs, what bin/gateway.js loads), but a page's first block
 * that says `npx gateway` goes through the real npx, so the bin is resolved as a reader's shell resolves it.
 * docs/quickstart.md has its own test (test/docs/quickstart.test.ts): it runs TypeScript blocks too.
 */
const OWN_TEST: Record<string, string> = { 'docs/quickstart.md': 'test/docs/quickstart.test.ts' };
/** Pages that start their gateway themselves (going live: with the local PSP's settings). */
const OWN_GATEWAY = new Set(['docs/going-live.md']);

/** What a page tells its reader to obtain before its blocks, obtained as the page says, by the commands it names. */
type Given = (page: Page) => Promise<Record<string, string>>;
/** The README's "create an account first: `npx gateway accounts create …`", as written: the id it prints. */
async function readmeAccount(page: Page): Promise<string> {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const create = /`(npx gateway accounts create [^`]+)`/.exec(readme)?.[1];
  expect(create, 'the README says how to create the first account').toBeDefined();
  const account = /created account (\d+)/.exec(await page.sh(create!))?.[1];
  expect(account).toBeDefined();
  return account!;
}

const GIVEN: Record<string, Given> = {
  // the README's account, "create a key pair" (`gateway keys create`), and for the example stores "the secret of a
  // webhook pointed at the shop's /webhooks" (`gateway webhooks create`)
  'README.md': async (page) => {
    const account = await readmeAccount(page);
    const keys = JSON.parse(await page.sh(`npx gateway keys create --account ${account} --name docs --json`));
    const hook = JSON.parse(
      await page.sh(
        `npx gateway webhooks create --account ${account} --url http://localhost:4243/webhooks --events sale.paid,sale.refunded --json`,
      ),
    );
    return {
      PUBLIC_KEY: keys.publicKey,
      PRIVATE_KEY: keys.privateKey,
      GATEWAY_URL: page.url,
      GATEWAY_PUBLIC_KEY: keys.publicKey,
      GATEWAY_PRIVATE_KEY: keys.privateKey,
      GATEWAY_WEBHOOK_SECRET: hook.secret,
    };
  },
  // "with the account's id in ACCOUNT_ID (`gateway accounts create` printed it)", "the new one in NEW_PASSWORD"
  'docs/operations.md': async (page) => ({
    ACCOUNT_ID: await readmeAccount(page),
    NEW_PASSWORD: 'outra-senha-bem-longa',
  }),
  // "a test account …, its id in ACCOUNT_ID"; "the gateway's address and a key pair … as in docs/quickstart.md"
  'docs/going-live.md': async (page) => {
    const account = await readmeAccount(page);
    const keys = JSON.parse(await page.sh(`npx gateway keys create --account ${account} --name docs --json`));
    return {
      ACCOUNT_ID: account,
      GATEWAY_URL: page.url,
      GATEWAY_PUBLIC_KEY: keys.publicKey,
      GATEWAY_PRIVATE_KEY: keys.privateKey,
    };
  },
};

it('every code block of README.md and docs/*.md names its language, and shell blocks only known markers', () => {
  for (const page of PAGES)
    for (const fence of fences(page)) {
      expect(fence.lang, `${page}:${fence.line}: a fence without a language`).not.toBe('');
      if (SHELLS.has(fence.lang))
        for (const word of fence.words)
          expect(MARKERS.has(word), `${page}:${fence.line}: unknown marker "${word}"`).toBe(true);
    }
});

for (const pageName of PAGES) {
  const blocks = fences(pageName).filter((f) => SHELLS.has(f.lang));
  if (blocks.length === 0 || OWN_TEST[pageName]) continue;
  describe(`${pageName}, run as written`, () => {
    let page: Page;
    beforeAll(async () => {
      page = await Page.fresh(pageName);
      if (!OWN_GATEWAY.has(pageName)) await page.start();
      Object.assign(page.env, await GIVEN[pageName]?.(page));
    }, 180_000);
    afterAll(async () => {
      await page?.close();
    }, 60_000);

    for (const fence of blocks) {
      if (fence.words.includes('manual')) it.skip(title(fence), () => {});
      else it(title(fence), () => page.runBlock(fence), 120_000);
    }
  });
}
