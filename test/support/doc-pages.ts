import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { LogWatch } from './log-watch.js';
import { freePort } from './ports.js';
import { waitUntil } from './wait.js';

/**
 * The docs' pages run as written (test/docs/commands.test.ts says the convention): their fenced blocks, and a fresh
 * gateway per page started as the README says, with none of the README's settings but those the page gives.
 */
export const ROOT = path.resolve(import.meta.dirname, '../..');
export const MAIN = path.join(ROOT, 'dist', 'bundle', 'main.mjs');
export const SHELLS = new Set(['sh', 'bash', 'shell']);
export const MARKERS = new Set(['background', 'manual']);
export interface Fence {
  page: string;
  line: number;
  lang: string;
  words: string[];
  code: string;
}

export function fences(page: string): Fence[] {
  const lines = readFileSync(path.join(ROOT, page), 'utf8').split('\n');
  const found: Fence[] = [];
  for (let i = 0; i < lines.length; i++) {
    // a fence may be indented (a block inside a list item): its lines lose that indentation
    const open = /^( *)```(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!;
    const [lang = '', ...words] = open[2]!.trim().split(/\s+/);
    const start = i;
    while (++i < lines.length && lines[i] !== `${indent}\`\`\``);
    const code = lines.slice(start + 1, i).map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l));
    found.push({ page, line: start + 1, lang, words, code: `${code.join('\n')}\n` });
  }
  return found;
}

export const PAGES = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
export const title = (f: Fence) =>
  `${f.page}:${f.line} ${f.code
    .split('\n')
    .find((l) => l.trim() && !l.trim().startsWith('#'))
    ?.trim()}`;

/** Every setting the README's settings table names: none of them reaches a page's commands unless the page gives it. */
function documentedSettings(): string[] {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const table = readme.slice(
    readme.indexOf('### Settings (environment)'),
    readme.indexOf('### Operator commands'),
  );
  const names = new Set<string>();
  for (const row of table.split('\n').filter((l) => l.startsWith('| `')))
    for (const m of row.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) names.add(m[1]!);
  return [...names];
}

function realNpx(): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, 'npx');
    if (dir && existsSync(candidate)) return candidate;
  }
  throw new Error('npx is not on PATH');
}

export interface Run {
  child: ChildProcess;
  out: () => string;
  stdout: () => string;
  closed: Promise<number | null>;
}

export function start(command: string, args: string[], env: NodeJS.ProcessEnv): Run {
  // its own process group: a background block's children (npm → node) are stopped with it
  const child = spawn(command, args, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => {
    out += c;
    stdout += c;
  });
  child.stderr!.setEncoding('utf8').on('data', (c: string) => {
    out += c;
  });
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, out: () => out, stdout: () => stdout, closed };
}

export async function stop(run: Run): Promise<void> {
  if (run.child.exitCode !== null || run.child.signalCode !== null) return;
  try {
    process.kill(-run.child.pid!, 'SIGTERM');
  } catch {
    return; // gone already
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-run.child.pid!, 'SIGKILL');
    } catch {}
  }, 20_000);
  await run.closed;
  clearTimeout(timer);
}

export class Page {
  readonly dataDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly url: string;
  private gateway?: Run;
  private logs?: LogWatch;
  private readonly background: Run[] = [];
  private usedRealNpx = false;

  /** A page's gateway-to-be on a free port and a fresh DATA_DIR (`start()` starts it). */
  static async fresh(name: string): Promise<Page> {
    return new Page(name, await freePort());
  }

  private constructor(
    readonly name: string,
    readonly port: number,
  ) {
    const work = mkdtempSync(path.join(tmpdir(), 'gw-docs-'));
    this.dataDir = path.join(work, 'data');
    const bin = path.join(work, 'bin');
    mkdirSync(bin);
    // `npx gateway` → the built bundle; anything else → npx itself
    writeFileSync(
      path.join(bin, 'npx'),
      `#!/bin/sh\nif [ "$1" = gateway ] && [ -z "$DOCS_REAL_NPX" ]; then shift; exec "${process.execPath}" "${MAIN}" "$@"; fi\nexec "${realNpx()}" "$@"\n`,
    );
    chmodSync(path.join(bin, 'npx'), 0o755);
    this.url = `http://localhost:${port}`;
    const settings = new Set(documentedSettings());
    this.env = {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !settings.has(k))),
      PATH: `${bin}${path.delimiter}${process.env.PATH}`,
      DATA_DIR: this.dataDir,
      PORT: String(port),
    };
  }

  async start(): Promise<void> {
    this.gateway = start(process.execPath, [MAIN, 'serve'], this.env);
    this.logs = new LogWatch(`${this.name}: gateway serve (pid ${this.gateway.child.pid})`);
    this.gateway.child.stdout!.on('data', (c: string) => this.logs!.write(c));
    await waitUntil(() => {
      if (this.gateway!.child.exitCode !== null)
        throw new Error(`gateway serve exited:\n${this.gateway!.out()}`);
      return /"msg":"gateway listening"/.test(this.gateway!.stdout());
    }, 90_000).catch((err) => {
      throw new Error(`gateway serve did not start: ${err}\n${this.gateway!.out()}`);
    });
  }

  /** A page's `localhost:3000` is this gateway. */
  private script(code: string): string {
    return code.replaceAll('localhost:3000', `localhost:${this.port}`);
  }

  private shellEnv(code: string): NodeJS.ProcessEnv {
    const real = !this.usedRealNpx && /\bnpx gateway\b/.test(code);
    if (real) this.usedRealNpx = true;
    return real ? { ...this.env, DOCS_REAL_NPX: '1' } : this.env;
  }

  /** One command of the test's own (what the page says to obtain), to completion: its stdout. */
  async sh(code: string): Promise<string> {
    const run = start('bash', ['-e', '-o', 'pipefail', '-c', code], this.env);
    const exit = await run.closed;
    expect(exit, `${code}\n---\n${run.out()}`).toBe(0);
    return run.stdout();
  }

  async runBlock(fence: Fence): Promise<void> {
    const code = this.script(fence.code);
    const run = start('bash', ['-e', '-o', 'pipefail', '-c', code], this.shellEnv(code));
    const shown = () => `${title(fence)}\n${code}---\n${run.out()}`;
    if (fence.words.includes('background')) {
      this.background.push(run);
      const url = /#\s*(https?:\/\/\S+)/.exec(code)?.[1];
      await waitUntil(async () => {
        if (run.child.exitCode !== null) throw new Error(`it exited (${run.child.exitCode}):\n${shown()}`);
        if (!url) return run.out().length > 0;
        return fetch(url).then(
          () => true,
          () => false,
        );
      }, 60_000).catch((err) => {
        throw new Error(`${err}\n${shown()}`);
      });
      return;
    }
    const timer = setTimeout(() => stop(run), 90_000);
    const exit = await run.closed;
    clearTimeout(timer);
    expect(exit, shown()).toBe(0);
    expect(run.stdout(), shown()).not.toMatch(/"success":\s*false|"error":\s*["{]/);
    // the answers the block's comments show
    for (const m of code.matchAll(/^\s*#\s*(\{.*\})(\s+\(.*\))?\s*$/gm)) {
      const expected = JSON.stringify(JSON.parse(m[1]!));
      expect(run.stdout(), `${shown()}\n(the block's comment shows ${expected})`).toContain(expected);
    }
  }

  async close(): Promise<void> {
    for (const run of this.background.reverse()) await stop(run);
    if (this.gateway) {
      await stop(this.gateway);
      expect(this.gateway.child.exitCode, this.gateway.out()).toBe(0);
      this.logs?.end();
    }
    // the last gateway process to leave stops the embedded PostgreSQL (README, "Running")
    const pid = path.join(this.dataDir, 'postgres', 'postmaster.pid');
    await waitUntil(() => !existsSync(pid), 20_000).catch(() => {
      const leftover = Number(readFileSync(pid, 'utf8').split('\n')[0]);
      if (leftover) process.kill(leftover, 'SIGTERM');
      throw new Error(`the embedded PostgreSQL of ${this.name} was left running (pid ${leftover})`);
    });
  }
}
