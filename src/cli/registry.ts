import { accountCommands } from '../accounts/index.js';
import { keyCommands } from '../auth/index.js';
import { boletoCommands } from '../boletos/index.js';
import { ledgerCommands } from '../ledger/index.js';
import type { Command } from '../platform/cli/command.js';
import { migrate } from '../platform/db/migrate.js';
import { reconciliationCommands } from '../reconciliation/index.js';
import { notificationCommands } from '../webhooks/index.js';
import { withdrawalCommands } from '../withdrawals/index.js';

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
  ...withdrawalCommands,
  ...notificationCommands,
  ...reconciliationCommands,
  ...boletoCommands,
];
