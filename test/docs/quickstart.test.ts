import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Page } from '../support/doc-pages.js';
import { waitUntil } from '../support/wait.js';

/**
 * docs/quickstart.md, run as written: every ```sh and ```ts block in order, against a fresh gateway started as the
 * page says (`npm start`: `gateway serve` on a fresh DATA_DIR, the embedded database; none of the README's
 * settings but those the page gives, as test/docs/commands.test.ts runs the other pages), with the three variables
 * the page tells the reader to set: the gateway's address and the key pair its first block printed.
 * `background` blocks keep running (listen, the endpoint).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const WORK = path.join(ROOT, 'test-output', 'quickstart');

interface Block {
  lang: 'sh' | 'ts';
  background: boolean;
  code: string;
}

function blocks(markdown: string): Block[] {
  return [...markdown.matchAll(/^```(sh|ts)( background)?\n([\s\S]*?)^```$/gm)].map((m) => ({
    lang: m[1] as 'sh' | 'ts',
    background: m[2] !== undefined,
    code: m[3]!,
  }));
}

let page: Page;
const running: ChildProcess[] = [];

beforeAll(async () => {
  page = await Page.fresh('docs/quickstart.md');
  await page.start();
  mkdirSync(WORK, { recursive: true });
}, 120_000);
afterAll(async () => {
  for (const child of running) child.kill('SIGKILL');
  await page?.close();
}, 60_000);

function run(block: Block, index: number, env: NodeJS.ProcessEnv): { child: ChildProcess; out: string[] } {
  let command: string[];
  if (block.lang === 'sh') command = ['bash', '-e', '-c', block.code];
  else {
    const file = path.join(WORK, `snippet-${index}.ts`);
    writeFileSync(file, block.code);
    command = [process.execPath, '--import', 'tsx', file];
  }
  const child = spawn(command[0]!, command.slice(1), { cwd: ROOT, env });
  const out: string[] = [];
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stdout!.on('data', (c: string) => out.push(...c.split('\n').filter(Boolean)));
  child.stderr!.on('data', (c: string) =>
    out.push(
      ...c
        .split('\n')
        .filter(Boolean)
        .map((l) => `stderr: ${l}`),
    ),
  );
  return { child, out };
}

it('runs every snippet of docs/quickstart.md, in order, against a real gateway', async () => {
  const all = blocks(readFileSync(path.join(ROOT, 'docs', 'quickstart.md'), 'utf8'));
  expect(all.length).toBeGreaterThanOrEqual(7);
  // `export GATEWAY_URL=http://localhost:3000 …`: this gateway's address; the key pair comes from the first block
  const env: NodeJS.ProcessEnv = { ...page.env, GATEWAY_URL: page.url };
  let endpoint: string[] = [];
  const listener: string[] = [];
  for (const [i, block] of all.entries()) {
    if (i > 0) expect(env.GATEWAY_PRIVATE_KEY, 'the first block printed a key pair').toMatch(/^sk_/);
    const { child, out } = run(block, i, env);
    if (block.background) {
      running.push(child);
      // `gateway listen` prints its secret once it is connected (npx may print warnings long before)
      const listens = block.code.includes('gateway listen');
      await waitUntil(() => (listens ? /whsec_/.test(out.join('\n')) : out.length > 0), 30_000);
      await new Promise((resolve) => setTimeout(resolve, 1000)); // the rest of its first lines
      const secret = out.join('\n').match(/whsec_[A-Za-z0-9+/=]+/)?.[0];
      if (secret)
        env.GATEWAY_WEBHOOK_SECRET = secret; // what the page tells the reader to copy
      else endpoint = out;
      continue;
    }
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, `block ${i} (${block.lang}):\n${block.code}\n---\n${out.join('\n')}`).toBe(0);
    expect(out.join('\n')).not.toMatch(/"success":false|"error":"/);
    // "The second command prints the pair: … give both to your shell"
    const printed = out.join('\n');
    const pair = [
      /x-api-public-key:\s+(pk_\S+)/i.exec(printed)?.[1],
      /x-api-private-key:\s+(sk_\S+)/i.exec(printed)?.[1],
    ];
    if (pair[0] && pair[1]) [env.GATEWAY_PUBLIC_KEY, env.GATEWAY_PRIVATE_KEY] = pair;
  }
  // the reader's charge, paid by the trigger, reached their endpoint through `gateway listen`, verified
  await waitUntil(
    () => endpoint.some((l) => /^verified sale\.paid \S+: PAGO \(order pedido-1001\)$/.test(l)),
    20_000,
  ).catch(() => {
    throw new Error(`the endpoint printed:\n${endpoint.join('\n')}\nlisten printed:\n${listener.join('\n')}`);
  });
  // step 4 paid the reader's own charge of step 2: no other sale of that order was made (step 6 makes its own)
  expect(endpoint.filter((l) => /^verified sale\..*\(order pedido-1001\)$/.test(l))).toEqual([
    expect.stringMatching(/^verified sale\.paid /),
  ]);
}, 180_000); // a dozen child processes (npm, node, python) on a loaded 2-core machine
