import { execFile } from 'node:child_process';
import path from 'node:path';

const MAIN = path.resolve(import.meta.dirname, '../../dist/cli/main.js');

/** Runs the real `gateway` CLI (built dist/) as a child process. */
export function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, ...args],
      { env: { ...process.env, LOG_LEVEL: 'silent', ...env } },
      (err, stdout, stderr) => {
        const code = err ? ((err as { code?: number }).code ?? 1) : 0;
        resolve({ code: typeof code === 'number' ? code : 1, stdout, stderr });
      },
    );
  });
}
