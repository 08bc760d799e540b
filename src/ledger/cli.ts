import type { Command } from '../cli/command.js';
import { verifyLedger } from './verify.js';

export const ledgerCommands: Command[] = [
  {
    path: ['ledger', 'verify'],
    usage: 'gateway ledger verify [--json]',
    options: {},
    async run({ db }) {
      const report = await verifyLedger(db);
      if (report.ok) {
        return { result: report, text: `ledger ok: ${report.entries} entries, ${report.accounts} accounts` };
      }
      const first = report.problems[0]!;
      const what =
        first.kind === 'balance_mismatch'
          ? `account ${first.account} holds ${first.actual} but its postings sum to ${first.expected}`
          : first.kind === 'orphan_posting'
            ? `posting ${first.postingId} names journal entry ${first.entryId} and ledger account ${first.ledgerAccountId}, and one of them does not exist`
            : `journal entry ${first.entryId} does not balance (sum ${first.sum})`;
      return {
        result: report,
        text: report.problems.map((p) => JSON.stringify(p)).join('\n'),
        exitCode: 1,
        error: `ledger verify failed: ${what} (${report.problems.length} problem(s))`,
      };
    },
  },
];
