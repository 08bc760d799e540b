import { type Command, required, UsageError } from '../cli/command.js';
import { parsePublicId } from '../platform/ids.js';
import { cancelCashout } from './cancel.js';
import { lookupView } from './views.js';

export const cashoutCommands: Command[] = [
  {
    path: ['cashouts', 'cancel'],
    usage: 'gateway cashouts cancel --id ID [--json]',
    options: { id: { type: 'string' } },
    async run({ db }, values) {
      const raw = required(values, 'id');
      const id = parsePublicId(raw);
      if (!id) throw new UsageError(`--id must be a withdrawal uuid or numeric id, got "${raw}"`);
      const row = await cancelCashout(db, id);
      return { result: lookupView(row), text: `withdrawal ${row.id} (${row.uuid}) is CANCELLED` };
    },
  },
];
