import type { Command } from '../platform/cli/command.js';
import type { LedgerProblem } from './verify.js';

// the command loads the module's code when it runs: the CLI's help and usage load no more than this file

export const ledgerCommands: Command[] = [
  {
    path: ['ledger', 'verify'],
    usage: 'gateway ledger verify [--json]',
    summary:
      'Checks that every journal entry balances and every maintained balance equals its postings; exit 1 on a problem.',
    example: 'gateway ledger verify --json',
    optionHelp: {},
    options: {},
    async run({ db }) {
      const { verifyLedger } = await import('./verify.js');
      const report = await verifyLedger(db);
      if (report.ok) {
        return {
          result: report,
          text: `ledger ok: ${report.entries} journal entries, ${report.accounts} ledger accounts, every balance equal to its postings`,
        };
      }
      const what = describeProblem(report.problems[0]!);
      return {
        result: report,
        text: report.problems.map((p) => JSON.stringify(p)).join('\n'),
        exitCode: 1,
        error: `ledger verify failed: ${what} (${report.problems.length} problem(s))`,
      };
    },
  },
];

function describeProblem(p: LedgerProblem): string {
  switch (p.kind) {
    case 'balance_mismatch':
      return `account ${p.account} holds ${p.actual} but its postings sum to ${p.expected}`;
    case 'orphan_posting':
      return `posting ${p.postingId} names journal entry ${p.entryId} and ledger account ${p.ledgerAccountId}, and one of them does not exist`;
    case 'negative_available':
      return `account ${p.account} holds ${p.actual}, below zero by more than disputes took from it (${p.expected})`;
    case 'negative_blocked':
      return `account ${p.account} holds ${p.actual}: a blocked balance is never below zero`;
    case 'unbalanced_entry':
      return `journal entry ${p.entryId} does not balance (sum ${p.sum})`;
    case 'receivable_mismatch':
      return `account ${p.account} holds ${p.actual} but its unsettled card installments sum to ${p.expected}`;
    case 'anticipation_mismatch':
      return `anticipation ${p.anticipationId} took ${p.actual} from receivable but its installments sum to ${p.expected}`;
  }
}
