import { type ChildProcess, spawn } from 'node:child_process';

/**
 * Fenced code blocks of a README that a test runs. The info string's second word says how: `setup` (the
 * block every `run` block continues), `run` (setup + block, run to completion), `background` (a standalone
 * block that keeps running: a webhook receiver). Blocks without one are not run by the snippet tests.
 */
export interface Snippet {
  role: 'setup' | 'run' | 'background';
  code: string;
}

export function snippetsOf(markdown: string, lang: 'ts' | 'python'): Snippet[] {
  const fence = new RegExp(`^\`\`\`${lang} (setup|run|background)\\n([\\s\\S]*?)^\`\`\`$`, 'gm');
  return [...markdown.matchAll(fence)].map((m) => ({ role: m[1] as Snippet['role'], code: m[2]! }));
}

/** Every fenced block of `lang` in the markdown, run or not (to show none escapes the tests unnoticed). */
export function blocksOf(markdown: string, lang: string): string[] {
  return [...markdown.matchAll(new RegExp(`^\`\`\`${lang}( [a-z]+)?\\n`, 'gm'))].map((m) => m[0]);
}

/** A child process whose stdout and stderr lines are collected as they come (stderr lines prefixed). */
export interface Running {
  child: ChildProcess;
  out: string[];
  exited: Promise<number | null>;
  /** Kills it and every process it started (`npm run` starts a shell that starts the program). */
  stop(): void;
}

export function spawnCollecting(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Running {
  // its own process group, so that stop() reaches the processes it starts as well
  const child = spawn(command, args, { ...options, detached: true });
  const out: string[] = [];
  // whole lines only: a chunk may end in the middle of one (the rest is kept for the next, or for the end)
  const partial = { '': '', 'stderr: ': '' };
  const collect = (prefix: keyof typeof partial) => (chunk: string) => {
    const lines = (partial[prefix] + chunk).split('\n');
    partial[prefix] = lines.pop()!;
    out.push(...lines.filter(Boolean).map((l) => `${prefix}${l}`));
  };
  child.stdout!.setEncoding('utf8').on('data', collect(''));
  child.stderr!.setEncoding('utf8').on('data', collect('stderr: '));
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      for (const [prefix, rest] of Object.entries(partial)) if (rest) out.push(`${prefix}${rest}`);
      resolve(code);
    }),
  );
  const stop = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group has already ended
    }
  };
  return { child, out, exited, stop };
}
