// Each domain's commands are its second door, for the CLI alone: a command loads its own module's code, not its
// routes and workers (the operator's commands start fast).
import { accountCommands } from '../accounts/cli.js';
import { keyCommands } from '../auth/cli.js';
import { boletoCommands } from '../boletos/cli.js';
import { ledgerCommands } from '../ledger/cli.js';
import { operatorCommands } from '../operators/cli.js';
import type { Command } from '../platform/cli/command.js';
import { migrate } from '../platform/db/migrate.js';
import { reconciliationCommands } from '../reconciliation/cli.js';
import { notificationCommands } from '../webhooks/cli.js';
import { withdrawalCommands } from '../withdrawals/cli.js';

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
  ...operatorCommands,
];
