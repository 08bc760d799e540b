import { execFile } from 'node:child_process';
import path from 'node:path';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const MAIN = path.resolve(import.meta.dirname, '../../dist/bundle/main.mjs');

/**
 * `gateway <args>` (the built dist/) to completion. `env` replaces the gateway settings of this process:
 * DATABASE_URL and the other settings are passed only when given.
 */
export function runGateway(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
  stdin?: string,
): Promise<CliResult> {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) =>
        !/^(DATABASE_URL|DATA_DIR|PORT|HOST|NODE_ENV|TRUST_PROXY|SECRETS_KEY|POSTBACK_SECRET)$/.test(k),
    ),
  );
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [MAIN, ...args],
      { env: { ...base, LOG_LEVEL: 'warn', NODE_ENV: 'test', ...env }, timeout: timeoutMs },
      (err, stdout, stderr) => {
        const code = err ? ((err as { code?: number | string }).code ?? null) : 0;
        resolve({ code: typeof code === 'number' ? code : null, stdout, stderr });
      },
    );
    child.stdin?.end(stdin ?? '');
  });
}

/** The non-empty lines of a stream. */
export const lines = (text: string): string[] => text.split('\n').filter((l) => l.trim() !== '');
