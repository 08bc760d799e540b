import { type Command, required, UsageError } from '../platform/cli/command.js';
import { type PublicId, parsePublicId } from '../platform/ids/public-ids.js';

// each command loads the module's code when it runs: the CLI's help and usage load no more than this file
const stuck = () => import('./payouts/stuck.js');

function withdrawalId(values: Record<string, string | boolean | undefined>): PublicId {
  const raw = required(values, 'id');
  const id = parsePublicId(raw);
  if (!id) throw new UsageError(`--id must be a withdrawal uuid or numeric id, got "${raw}"`);
  return id;
}

export const withdrawalCommands: Command[] = [
  {
    path: ['cashouts', 'stuck'],
    usage: 'gateway cashouts stuck [--minutes 5] [--json]',
    summary:
      'Lists withdrawals PENDING or PROCESSING for longer than the minutes given (those awaiting approval marked so).',
    example: 'gateway cashouts stuck --minutes 30',
    optionHelp: { minutes: 'how long a withdrawal has waited (default 5)' },
    options: { minutes: { type: 'string' } },
    async run({ db }, values) {
      const raw = typeof values.minutes === 'string' ? values.minutes : '5';
      if (!/^\d{1,6}$/.test(raw)) throw new UsageError(`--minutes must be a whole number, got "${raw}"`);
      const { stuckWithdrawals } = await stuck();
      const rows = await stuckWithdrawals(db, Number(raw));
      const text =
        rows.length === 0
          ? `no withdrawal has been PENDING or PROCESSING for more than ${raw} minutes`
          : rows
              .map(
                (r) =>
                  `${r.id} ${r.uuid} ${r.status}${r.submitting && r.status === 'PENDING' ? ' (submitting)' : ''}` +
                  `${r.awaitingApproval ? ' (awaiting approval)' : ''} ` +
                  `${r.provider === null ? 'not sent yet' : `provider=${r.provider}`} ${r.ageMinutes} min`,
              )
              .join('\n');
      return { result: rows, text };
    },
  },
  {
    path: ['cashouts', 'retry'],
    usage: 'gateway cashouts retry --id ID [--json]',
    summary:
      'Queues a PENDING withdrawal for submission again (same reference: the provider cannot pay it twice).',
    example: 'gateway cashouts retry --id 42',
    optionHelp: { id: "the withdrawal's uuid or numeric id" },
    options: { id: { type: 'string' } },
    async run({ db, config }, values) {
      const id = withdrawalId(values);
      const [{ retrySubmission }, { Queue }, { createLogger }] = await Promise.all([
        stuck(),
        import('../platform/jobs/queue.js'),
        import('../platform/observability/logger.js'),
      ]);
      const queue = await Queue.start(db, createLogger(config.logLevel), null);
      try {
        const withdrawalId = await retrySubmission(db, queue, id);
        return {
          result: { id: withdrawalId, queued: true },
          text:
            config.payoutProvider === 'none'
              ? `withdrawal ${withdrawalId} queued for submission; PAYOUT_PROVIDER is none here: only a worker run with a payout provider sends it`
              : `withdrawal ${withdrawalId} queued for submission (the payout worker sends it)`,
        };
      } finally {
        await queue.stop();
      }
    },
  },
  {
    path: ['cashouts', 'cancel'],
    usage: 'gateway cashouts cancel --id ID [--json]',
    summary: 'Cancels a withdrawal nothing was sent for yet, and gives its money back to available.',
    example: 'gateway cashouts cancel --id 42',
    optionHelp: { id: "the withdrawal's uuid or numeric id" },
    options: { id: { type: 'string' } },
    async run({ db }, values) {
      const id = withdrawalId(values);
      const [{ cancelWithdrawal }, { lookupView }] = await Promise.all([
        import('./cancel.js'),
        import('./views.js'),
      ]);
      const row = await cancelWithdrawal(db, id);
      return { result: lookupView(row), text: `withdrawal ${row.id} (${row.uuid}) is CANCELLED` };
    },
  },
];
