import { type Command, required, UsageError } from '../platform/cli/command.js';
import { pruneNotifications } from './retention.js';

export const notificationCommands: Command[] = [
  {
    path: ['notifications', 'prune'],
    usage: 'gateway notifications prune --older-than-days N [--json]',
    summary:
      'Deletes finished deliveries, their attempts and unreferenced events older than the days given (events are kept at least 30 days; pending work always stays).',
    example: 'gateway notifications prune --older-than-days 90',
    optionHelp: { 'older-than-days': 'how old, in days, history must be to go' },
    options: { 'older-than-days': { type: 'string' } },
    async run({ db }, values) {
      const raw = required(values, 'older-than-days');
      if (!/^\d{1,5}$/.test(raw) || Number(raw) < 1) {
        throw new UsageError(`--older-than-days must be a whole number of days, at least 1, got "${raw}"`);
      }
      const before = new Date(Date.now() - Number(raw) * 86_400_000);
      const pruned = await pruneNotifications(db, before);
      return {
        result: pruned,
        text:
          `deleted notification history from before ${pruned.before}: ${pruned.deliveries} finished deliveries, ` +
          `${pruned.attempts} attempts, ${pruned.facts} facts (pending deliveries kept)`,
      };
    },
  },
];
