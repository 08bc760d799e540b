import { parseArgs } from 'node:util';
import { type CommandHelp, givenOnce, UsageError, usageProblem } from '../../platform/cli/command.js';
import { EVENT_NAMES, type EventName, isEventName } from '../../webhooks/cli.js';
import { TARGET_HELP, TARGET_OPTIONS, targetOf } from './client.js';
import { listen, parseListenArgs } from './listen.js';
import { parseRefundArgs, refund } from './refund.js';
import { subjectProblem, type TriggerSubject, trigger } from './trigger.js';

/** Commands for integrators: clients of a running gateway over HTTP, with an account's key pair. */
export const INTEGRATOR_COMMANDS: (CommandHelp & { path: readonly string[] })[] = [
  {
    path: ['listen'],
    usage: 'gateway listen --forward-to URL [--events a,b,…] [--url URL] [--public-key K --private-key K]',
    summary:
      "Follows the account's events and POSTs each one to URL, signed as a permanent webhook with the listen secret it prints (the same every run with the same keys); resumes after a dropped connection without losing an event.",
    optionHelp: {
      'forward-to': 'where each event is POSTed (e.g. your local webhook endpoint)',
      events: 'only these event names, separated by commas (default: all)',
      ...TARGET_HELP,
    },
    example:
      'gateway listen --forward-to http://localhost:4242/webhooks --events sale.paid,withdrawal.completed',
  },
  {
    path: ['trigger'],
    usage:
      'gateway trigger EVENT [--sale ID | --withdrawal ID] [--json] [--url URL] [--public-key K --private-key K]',
    summary:
      'Makes EVENT happen for real through the sandbox routes (creating and funding what it needs, or moving your own sale or withdrawal) and prints the ids of what it made or moved.',
    optionHelp: {
      sale: 'your own sale (uuid or id) to move instead of a new one: sale.paid, refused, canceled, refunded, chargeback; dispute.opened, won, lost (paid first if it is not)',
      withdrawal: 'your own withdrawal (uuid or id) to settle: withdrawal.completed, rejected, canceled',
      ...TARGET_HELP,
    },
    example: 'gateway trigger sale.paid --sale 3f1c2a9e-5b7d-4e8f-9a0b-1c2d3e4f5a6b',
  },
  {
    path: ['refund'],
    usage:
      'gateway refund SALE [--amount-cents N] [--idempotency-key K] [--json] [--url URL] [--public-key K --private-key K]',
    summary:
      'Refunds your sale (uuid or id) in full, or N cents of it, through POST /api/transactions/{id}/refund, and prints the sale as it then is; with --idempotency-key a repeat answers the same refund.',
    optionHelp: {
      'amount-cents': 'how much to return to the payer, in cents (default: all that is left)',
      'idempotency-key': 'sent as Idempotency-Key: the same key never makes a second refund',
      ...TARGET_HELP,
    },
    example:
      'gateway refund 3f1c2a9e-5b7d-4e8f-9a0b-1c2d3e4f5a6b --amount-cents 1500 --idempotency-key pedido-1001-r1',
  },
];

const OPTIONS = {
  listen: { ...TARGET_OPTIONS, 'forward-to': { type: 'string' }, events: { type: 'string' } },
  trigger: {
    ...TARGET_OPTIONS,
    json: { type: 'boolean' },
    sale: { type: 'string' },
    withdrawal: { type: 'string' },
  },
  refund: {
    ...TARGET_OPTIONS,
    json: { type: 'boolean' },
    'amount-cents': { type: 'string' },
    'idempotency-key': { type: 'string' },
  },
} as const;

function parsed(argv: readonly string[]): {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
} {
  const name = argv[0] as 'listen' | 'trigger' | 'refund';
  const { values, positionals, tokens } = parseArgs({
    args: argv.slice(1) as string[],
    options: OPTIONS[name],
    allowPositionals: name !== 'listen',
    strict: true,
    tokens: true,
  });
  givenOnce(tokens);
  return { values: values as Record<string, string | boolean | undefined>, positionals };
}

function subjectOf(values: Record<string, string | boolean | undefined>): TriggerSubject {
  const text = (v: string | boolean | undefined) => (typeof v === 'string' && v !== '' ? v : undefined);
  return { sale: text(values.sale), withdrawal: text(values.withdrawal) };
}

/** Bad usage of an integrator command, found before anything runs, or null. */
export function integratorUsageProblem(argv: readonly string[]): string | null {
  try {
    const { values, positionals } = parsed(argv);
    targetOf(values);
    if (argv[0] === 'listen') parseListenArgs(values);
    if (argv[0] === 'refund') parseRefundArgs(values, positionals);
    if (argv[0] === 'trigger' && positionals.length !== 1) throw new UsageError('name one event to trigger');
    if (argv[0] === 'trigger' && !isEventName(positionals[0])) {
      throw new UsageError(`unknown event "${positionals[0]}" (one of: ${EVENT_NAMES.join(', ')})`);
    }
    if (argv[0] === 'trigger') {
      const problem = subjectProblem(positionals[0] as EventName, subjectOf(values));
      if (problem) throw new UsageError(problem);
    }
    return null;
  } catch (err) {
    const usage = INTEGRATOR_COMMANDS.find((c) => c.path[0] === argv[0])!.usage;
    return `${usageProblem(err)} (usage: ${usage})`;
  }
}

/** Runs `gateway listen` (until Ctrl-C), `gateway trigger` or `gateway refund`; returns the exit code. */
export async function runIntegratorCommand(
  argv: readonly string[],
  out: (text: string) => void,
): Promise<number> {
  const { values, positionals } = parsed(argv);
  const target = targetOf(values);
  if (argv[0] === 'refund') {
    const sale = await refund(target, parseRefundArgs(values, positionals));
    out(
      values.json
        ? `${JSON.stringify(sale)}\n`
        : `refund ${sale.refund.id} of ${sale.refund.amountCents} cents: ${sale.refund.status}${sale.replayed ? ' (the same refund as before: Idempotent-Replayed)' : ''}; sale ${sale.uuid}: ${sale.status}, ${sale.refundedAmount} of ${sale.amount} cents refunded${sale.refund.status === 'pending' ? ' so far (this refund is added once the processor makes it)' : ''}\n`,
    );
    return 0;
  }
  if (argv[0] === 'trigger') {
    const made = await trigger(target, positionals[0]!, subjectOf(values));
    out(
      values.json
        ? `${JSON.stringify(made)}\n`
        : `triggered ${made.event}: ${Object.entries(made)
            .filter(([k]) => k !== 'event')
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}\n`,
    );
    return 0;
  }
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  await listen(target, {
    ...parseListenArgs(values),
    print: (line) => out(`${line}\n`),
    signal: stop.signal,
  });
  return 0;
}
