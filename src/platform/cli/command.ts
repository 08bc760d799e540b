import type { ParseArgsConfig } from 'node:util';
import type { Config } from '../config/config.js';
import type { Db } from '../db/db.js';

export interface CommandContext {
  db: Db;
  config: Config;
}

export interface CommandOutcome {
  /** The JSON document printed with --json. */
  result: unknown;
  /** The human-readable line(s) printed without --json. */
  text: string;
  /** Non-zero with `error` set when the command ran but failed (e.g. ledger verify found problems). */
  exitCode?: number;
  error?: string;
}

/** What `gateway <command> --help` prints: its usage, what it does, its options, and one example. */
export interface CommandHelp {
  usage: string;
  summary: string;
  /** One line per option, by option name (without the dashes); --json is described for every command. */
  optionHelp: Record<string, string>;
  example: string;
}

export interface Command extends CommandHelp {
  path: readonly string[];
  options: NonNullable<ParseArgsConfig['options']>;
  positionals?: number;
  /** The command seals or opens secrets (SECRETS_KEY, POSTBACK_SECRET): they are loaded for it, and for no other. */
  secrets?: boolean;
  /**
   * The command may settle a sale or a refund: the rules `serve` installs on those changes (a boleto's terms, a
   * devolução under way waited for, a paid sale's cart closed) are installed for it, and loaded for no other.
   */
  settlesSales?: boolean;
  run(
    ctx: CommandContext,
    values: Record<string, string | boolean | undefined>,
    positionals: string[],
  ): Promise<CommandOutcome>;
}

/** A usage error (exit 2) as opposed to a failure of the operation (exit 1). */
export class UsageError extends Error {}

/** What a command's arguments got wrong (parseArgs' or the command's own words), in one line an operator reads. */
export function usageProblem(err: unknown): string {
  const text = (err instanceof Error ? err.message : String(err)).split('\n')[0]?.trim() || 'failed';
  const ambiguous = /^Option '(--[\w-]+)' argument is ambiguous/.exec(text);
  // `--minutes -5`: parseArgs takes a value starting with a dash for a forgotten one
  if (ambiguous) return `${ambiguous[1]} needs a value, and negative values are not accepted`;
  return text;
}

/**
 * Refuses an option given twice (`--email a --email b`): parseArgs keeps the last, and a command would act on
 * whichever came last without a word. Takes parseArgs' tokens (`tokens: true`).
 */
export function givenOnce(tokens: readonly { kind: string; name?: string }[] | undefined): void {
  const seen = new Set<string>();
  for (const t of tokens ?? []) {
    if (t.kind !== 'option' || t.name === undefined) continue;
    if (seen.has(t.name)) throw new UsageError(`--${t.name} is given more than once: give it once`);
    seen.add(t.name);
  }
}

export function required(values: Record<string, string | boolean | undefined>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

export function onOffArg(value: string, name: string): boolean {
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new UsageError(`${name} must be on or off, got "${value}"`);
}

/** The help text of one command. */
export function formatHelp(help: CommandHelp): string {
  const options = Object.entries({
    ...help.optionHelp,
    ...(help.usage.includes('[--json]') ? { json: 'print the result as one JSON document' } : {}),
  });
  const width = Math.max(0, ...options.map(([name]) => name.length)) + 4;
  return [
    `usage: ${help.usage}`,
    '',
    help.summary,
    ...(options.length > 0
      ? ['', 'options:', ...options.map(([name, text]) => `  --${name.padEnd(width - 2)}${text}`)]
      : []),
    '',
    'example:',
    `  ${help.example}`,
    '',
  ].join('\n');
}
