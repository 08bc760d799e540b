import type { Queryable } from '../platform/db/db.js';
import { anticipationMismatches } from './anticipated.js';
import { receivableMismatches } from './receivables.js';

export interface LedgerProblem {
  kind:
    | 'unbalanced_entry'
    | 'balance_mismatch'
    | 'orphan_posting'
    | 'receivable_mismatch'
    | 'anticipation_mismatch'
    | 'negative_available'
    | 'negative_blocked';
  entryId?: number;
  anticipationId?: number;
  postingId?: number;
  ledgerAccountId?: number;
  account?: string;
  expected?: number;
  actual?: number;
  sum?: number;
}

export interface LedgerReport {
  ok: boolean;
  entries: number;
  accounts: number;
  problems: LedgerProblem[];
}

/**
 * The entries that may take a merchant's or a recipient's available balance below zero: a dispute's (the sale's
 * move into it and the dispute's own share, and their returns), and a refund the processor made without the
 * merchant asking, whose money had already left. A refund asked for never does: it takes from the sale's
 * installments first, then from available only as far as available goes.
 */
const MAY_GO_NEGATIVE = ['sale.dispute_opened', 'sale.dispute_won', 'sale.dispute_released', 'sale.refunded'];

/**
 * Recipients (split payments) are checked as merchants are: their maintained balances, their receivable
 * buckets and their negative available balances.
 * Every entry sums to zero, every posting belongs to an existing entry and ledger account (postings carry no
 * foreign keys: migration 125), every maintained (merchant) balance equals the sum of its postings, each
 * receivable bucket holds exactly the card installments not yet settled, each paid anticipation took from it
 * exactly the installments it holds, and a negative available balance is
 * no deeper than what disputes (and unasked refunds) took from it: without them it would not be negative; a
 * blocked balance is never negative (what it holds aside was put there first).
 */
export async function verifyLedger(q: Queryable): Promise<LedgerReport> {
  const unbalanced = await q.query<{ entry_id: number; sum: number }>(
    `SELECT entry_id, sum(amount)::bigint AS sum FROM postings GROUP BY entry_id HAVING sum(amount) <> 0 ORDER BY entry_id`,
  );
  const mismatched = await q.query<{ code: string; balance: number; derived: number }>(
    `SELECT la.code, la.balance, COALESCE(sum(p.amount), 0)::bigint AS derived
       FROM ledger_accounts la LEFT JOIN postings p ON p.ledger_account_id = la.id
      WHERE la.account_id IS NOT NULL OR la.recipient_id IS NOT NULL
      GROUP BY la.id, la.code, la.balance
     HAVING la.balance <> COALESCE(sum(p.amount), 0)
      ORDER BY la.code`,
  );
  const orphans = await q.query<{ id: number; entry_id: number; ledger_account_id: number }>(
    `SELECT p.id, p.entry_id, p.ledger_account_id FROM postings p
      WHERE NOT EXISTS (SELECT 1 FROM journal_entries e WHERE e.id = p.entry_id)
         OR NOT EXISTS (SELECT 1 FROM ledger_accounts la WHERE la.id = p.ledger_account_id)
      ORDER BY p.id`,
  );
  const receivables = await receivableMismatches(q);
  const anticipations = await anticipationMismatches(q);
  const negative = await q.query<{ code: string; balance: number; allowed: number }>(
    `SELECT la.code, la.balance,
            COALESCE(sum(p.amount) FILTER (WHERE e.kind = ANY ($1::text[]) OR e.kind LIKE 'dispute.%'), 0)::bigint
              AS allowed
       FROM ledger_accounts la
       LEFT JOIN postings p ON p.ledger_account_id = la.id
       LEFT JOIN journal_entries e ON e.id = p.entry_id
      WHERE la.bucket = 'available' AND la.balance < 0
      GROUP BY la.id, la.code, la.balance
     HAVING la.balance - COALESCE(sum(p.amount) FILTER (WHERE e.kind = ANY ($1::text[]) OR e.kind LIKE 'dispute.%'), 0) < 0
      ORDER BY la.code`,
    [MAY_GO_NEGATIVE],
  );
  // a blocked bucket holds what refunds, disputes and cashouts in progress keep aside: never below zero
  const negativeBlocked = await q.query<{ code: string; balance: number }>(
    `SELECT code, balance FROM ledger_accounts
      WHERE bucket = 'blocked' AND balance < 0 AND (account_id IS NOT NULL OR recipient_id IS NOT NULL)
      ORDER BY code`,
  );
  const [counts] = await q.query<{ entries: number; accounts: number }>(
    `SELECT (SELECT count(*) FROM journal_entries)::bigint AS entries, (SELECT count(*) FROM ledger_accounts)::bigint AS accounts`,
  );
  const problems: LedgerProblem[] = [
    ...orphans.map((r) => ({
      kind: 'orphan_posting' as const,
      postingId: r.id,
      entryId: r.entry_id,
      ledgerAccountId: r.ledger_account_id,
    })),
    ...unbalanced.map((r) => ({ kind: 'unbalanced_entry' as const, entryId: r.entry_id, sum: r.sum })),
    ...mismatched.map((r) => ({
      kind: 'balance_mismatch' as const,
      account: r.code,
      expected: r.derived,
      actual: r.balance,
    })),
    ...receivables.map((r) => ({
      kind: 'receivable_mismatch' as const,
      account: r.code,
      expected: Number(r.scheduled),
      actual: Number(r.balance),
    })),
    ...anticipations.map((r) => ({
      kind: 'anticipation_mismatch' as const,
      anticipationId: Number(r.anticipation_id),
      expected: Number(r.installments),
      actual: Number(r.taken),
    })),
    ...negative.map((r) => ({
      kind: 'negative_available' as const,
      account: r.code,
      actual: r.balance,
      expected: r.allowed,
    })),
    ...negativeBlocked.map((r) => ({
      kind: 'negative_blocked' as const,
      account: r.code,
      actual: Number(r.balance),
      expected: 0,
    })),
  ];
  return { ok: problems.length === 0, entries: counts!.entries, accounts: counts!.accounts, problems };
}
