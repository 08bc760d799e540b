import { parseArgs } from 'node:util';
import { AppError } from '../platform/errors.js';
import type { Command, CommandContext } from './command.js';
import { UsageError } from './command.js';
import { COMMANDS } from './registry.js';

export interface Execution {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export function findCommand(argv: readonly string[]): Command | undefined {
  return COMMANDS.find((c) => c.path.every((word, i) => argv[i] === word));
}

export function usage(): string {
  return ['usage:', '  gateway serve', '  gateway worker', ...COMMANDS.map((c) => `  ${c.usage}`)].join('\n');
}

/** Runs one operator command against `ctx`; used directly and inside a running server (embedded database). */
export async function execute(argv: readonly string[], ctx: CommandContext): Promise<Execution> {
  const command = findCommand(argv);
  if (!command)
    return { exitCode: 2, stdout: '', stderr: `unknown command: ${argv.join(' ')}\n${usage()}\n` };
  let json = false;
  try {
    const parsed = parseArgs({
      args: argv.slice(command.path.length) as string[],
      options: { ...command.options, json: { type: 'boolean' } },
      allowPositionals: (command.positionals ?? 0) > 0,
      strict: true,
    });
    json = parsed.values.json === true;
    if (parsed.positionals.length !== (command.positionals ?? 0))
      throw new UsageError(`usage: ${command.usage}`);
    const outcome = await command.run(
      ctx,
      parsed.values as Record<string, string | boolean | undefined>,
      parsed.positionals,
    );
    const stdout = json ? `${JSON.stringify(outcome.result)}\n` : `${outcome.text}\n`;
    if (outcome.exitCode)
      return { exitCode: outcome.exitCode, stdout, stderr: `${outcome.error ?? 'failed'}\n` };
    return { exitCode: 0, stdout, stderr: '' };
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      return {
        exitCode: 2,
        stdout: '',
        stderr: `error: ${(err as Error).message}\nusage: ${command.usage}\n`,
      };
    }
    if (err instanceof AppError) return { exitCode: 1, stdout: '', stderr: `error: ${err.message}\n` };
    return { exitCode: 1, stdout: '', stderr: `error: ${oneLine(err)}\n` };
  }
}

function oneLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? 'failed';
}
