import { parseArgs } from 'node:util';
import type { Command, CommandContext, CommandHelp } from '../platform/cli/command.js';
import { formatHelp, givenOnce, UsageError, usageProblem } from '../platform/cli/command.js';
import { AppError } from '../platform/errors/app-error.js';
import { INTEGRATOR_COMMANDS, integratorUsageProblem } from './integrator/commands.js';
import { COMMANDS } from './registry.js';

export interface Execution {
  exitCode: number;
  stdout: string;
  stderr: string;
}

const DEV_ACQUIRER_COMMAND: CommandHelp & { path: readonly string[] } = {
  path: ['dev-acquirer'],
  usage: 'gateway dev-acquirer [--port N] [--notification-url URL] [--notification-secret S]',
  summary:
    "Runs a local card acquirer speaking Cielo's e-commerce API 3.0 (card tokens, sales, chargebacks), to try CARD_ACQUIRER=cielo without Cielo.",
  optionHelp: {
    port: 'the port to listen on (default 8444)',
    'notification-url':
      "where chargeback notices are POSTed (the gateway's /api/providers/cielo/notifications); POST /_dev/chargebacks opens one",
    'notification-secret':
      "sent as X-Notification-Secret with each notice (the gateway's CIELO_NOTIFICATION_SECRET)",
  },
  example:
    'gateway dev-acquirer --port 8444 --notification-url http://127.0.0.1:3000/api/providers/cielo/notifications',
};

/** The commands that start long-running processes, and the only flags they take. */
const PROCESS_COMMANDS: (CommandHelp & { path: readonly string[] })[] = [
  {
    path: ['serve'],
    usage: 'gateway serve [--no-worker]',
    summary:
      'Runs the HTTP API and the merchant panel, and the background workers unless --no-worker (on the embedded database without DATABASE_URL).',
    optionHelp: { 'no-worker': 'the API alone: run `gateway worker` processes beside it' },
    example: 'PORT=3000 gateway serve',
  },
  {
    path: ['worker'],
    usage: 'gateway worker',
    summary: 'Runs the background workers alone: payouts, notification deliveries, expiries and retention.',
    optionHelp: {},
    example: 'DATABASE_URL=postgres://gateway@db/gateway gateway worker',
  },
  {
    path: ['dev-psp'],
    usage: 'gateway dev-psp [--port N]',
    summary:
      "Runs a local PSP speaking the Central Bank's API Pix and Efí's payouts, to try the real rails without a bank.",
    optionHelp: { port: 'the port to listen on (default 8443)' },
    example: 'gateway dev-psp --port 8443',
  },
  DEV_ACQUIRER_COMMAND,
];
const PROCESS_USAGE = [...PROCESS_COMMANDS, ...INTEGRATOR_COMMANDS].map((c) => c.usage);
const PROCESS_FLAGS: Record<string, readonly string[]> = { serve: ['--no-worker'], worker: [] };

function findCommand(argv: readonly string[]): Command | undefined {
  return COMMANDS.find((c) => c.path.every((word, i) => argv[i] === word));
}

/** Whether the command `argv` names seals or opens secrets, so that its configuration must load them. */
export function needsSecrets(argv: readonly string[]): boolean {
  return findCommand(argv)?.secrets === true;
}

/** Whether the command `argv` names may settle a sale or a refund, so that the sale rules must be installed. */
export function settlesSales(argv: readonly string[]): boolean {
  return findCommand(argv)?.settlesSales === true;
}

/** `gateway <command> --help`: that command's own help, or null when the words name no command. */
export function helpFor(argv: readonly string[]): string | null {
  const words = argv.filter((a) => a !== '--help' && a !== '-h');
  const all = [...PROCESS_COMMANDS, ...INTEGRATOR_COMMANDS, ...COMMANDS];
  const command = all
    .filter((c) => c.path.every((word, i) => words[i] === word))
    .sort((a, b) => b.path.length - a.path.length)[0];
  return command ? formatHelp(command) : null;
}

export function usage(): string {
  return ['usage:', ...PROCESS_USAGE.map((u) => `  ${u}`), ...COMMANDS.map((c) => `  ${c.usage}`)].join('\n');
}

/** Bad usage found without touching the database (so it is exit 2 even when the database is down), or null. */
export function checkUsage(argv: readonly string[]): Execution | null {
  const json = argv.includes('--json');
  if (argv[0] === 'dev-acquirer') {
    const flags = ['--port', '--notification-url', '--notification-secret'];
    const rest = argv.slice(1);
    const fine =
      rest.length % 2 === 0 && rest.every((a, i) => (i % 2 === 0 ? flags.includes(a) : !a.startsWith('--')));
    return fine ? null : failure(2, `usage: ${DEV_ACQUIRER_COMMAND.usage}`, json);
  }
  if (argv[0] === 'dev-psp') {
    const [, option, value, ...more] = argv;
    const fine = option === undefined || (option === '--port' && value !== undefined && more.length === 0);
    return fine ? null : failure(2, `usage: gateway ${argv[0]} [--port N]`, json);
  }
  if (argv[0] === 'listen' || argv[0] === 'trigger' || argv[0] === 'refund') {
    const problem = integratorUsageProblem(argv);
    return problem === null ? null : failure(2, problem, json);
  }
  const flags = PROCESS_FLAGS[argv[0] ?? ''];
  if (flags) {
    const bad = argv.slice(1).find((a) => !flags.includes(a));
    const line = PROCESS_USAGE.find((u) => u.startsWith(`gateway ${argv[0]}`));
    return bad === undefined ? null : failure(2, `unknown option "${bad}" (usage: ${line})`, json);
  }
  const command = findCommand(argv);
  if (!command) return failure(2, `unknown command "${commandWords(argv)}" (run gateway --help)`, json);
  try {
    parse(command, argv);
    return null;
  } catch (err) {
    return usageFailure(err, command, json);
  }
}

/** Bad usage (exit 2) with the command's usage line, said once (a wrong count of arguments is that line). */
function usageFailure(err: unknown, command: Command, json: boolean): Execution {
  const problem = usageProblem(err);
  return failure(2, problem.startsWith('usage: ') ? problem : `${problem} (usage: ${command.usage})`, json);
}

function parse(command: Command, argv: readonly string[]) {
  const parsed = parseArgs({
    args: argv.slice(command.path.length) as string[],
    options: { ...command.options, json: { type: 'boolean' } },
    allowPositionals: (command.positionals ?? 0) > 0,
    strict: true,
    tokens: true,
  });
  givenOnce(parsed.tokens);
  if (parsed.positionals.length !== (command.positionals ?? 0))
    throw new UsageError(`usage: ${command.usage}`);
  return parsed;
}

/** Runs one operator command against `ctx`. */
export async function execute(argv: readonly string[], ctx: CommandContext): Promise<Execution> {
  const command = findCommand(argv);
  const json = argv.includes('--json');
  if (!command) return failure(2, `unknown command "${commandWords(argv)}" (run gateway --help)`, json);
  try {
    const parsed = parse(command, argv);
    const outcome = await command.run(
      ctx,
      parsed.values as Record<string, string | boolean | undefined>,
      parsed.positionals,
    );
    if (outcome.exitCode) {
      const message = oneLine(outcome.error ?? 'failed');
      // every failure's document carries `error` (README), a failing command's result beside it
      const error = { exitCode: outcome.exitCode, message };
      const result = outcome.result;
      const document =
        result !== null && typeof result === 'object' && !Array.isArray(result)
          ? { ...result, error }
          : { result, error };
      const stdout = json ? `${JSON.stringify(document)}\n` : `${outcome.text}\n`;
      return { exitCode: outcome.exitCode, stdout, stderr: `error: ${message}\n` };
    }
    const stdout = json ? `${JSON.stringify(outcome.result)}\n` : `${outcome.text}\n`;
    return { exitCode: 0, stdout, stderr: '' };
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      return usageFailure(err, command, json);
    }
    // a value the command refused (an email that is not one, a short password): bad usage too
    if (err instanceof AppError && err.code === 'VALIDATION_ERROR') return failure(2, oneLine(err), json);
    return failure(1, oneLine(err), json);
  }
}

/**
 * Exit 2 for bad usage, 1 for a failed operation; always one line on stderr. With --json, stdout still
 * carries one JSON document (`{"error": {...}}`) so scripts can parse every outcome.
 */
export function failure(exitCode: number, message: string, json: boolean): Execution {
  const stdout = json ? `${JSON.stringify({ error: { exitCode, message } })}\n` : '';
  return { exitCode, stdout, stderr: `error: ${message}\n` };
}

/** The words naming a command, without its options and their values (a password must not be echoed). */
function commandWords(argv: readonly string[]): string {
  const end = argv.findIndex((a) => a.startsWith('-'));
  return (end === -1 ? argv : argv.slice(0, end)).join(' ');
}

function oneLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0]?.trim() || 'failed';
}
