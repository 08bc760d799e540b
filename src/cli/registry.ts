import { accountCommands } from '../accounts/cli.js';
import { keyCommands } from '../auth/cli.js';
import { boletoCommands } from '../boletos/cli.js';
import { ledgerCommands } from '../ledger/cli.js';
import type { Command } from '../platform/cli/command.js';
import { migrate } from '../platform/db/migrate.js';
import { reconciliationCommands } from '../reconciliation/cli.js';
import { notificationCommands } from '../webhooks/cli.js';
import { cashoutCommands } from '../withdrawals/cli.js';

const migrateCommand: Command = {
  path: ['migrate'],
  usage: 'gateway migrate [--json]',
  summary: 'Applies the database migrations not yet applied (every other command and `serve` do it too).',
  example: 'gateway migrate',
  optionHelp: {},
  options: {},
  async run({ db }) {
    const { applied } = await migrate(db);
    return {
      result: { applied },
      text: applied.length ? `applied ${applied.join(', ')}` : 'database is up to date',
    };
  },
};

/** Every operator command except `serve` and `worker`, which start processes. */
export const COMMANDS: Command[] = [
  migrateCommand,
  ...accountCommands,
  ...keyCommands,
  ...ledgerCommands,
  ...cashoutCommands,
  ...notificationCommands,
  ...reconciliationCommands,
  ...boletoCommands,
];
