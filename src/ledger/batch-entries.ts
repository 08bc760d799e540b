import { codeOf, type JournalEntry } from './ledger.js';

/** A merchant balance row's change, summed over a batch's postings. */
export interface BalanceMove {
  /** A merchant's row, or (recipientId set) a recipient's. */
  accountId: number;
  recipientId?: number;
  bucket: string;
  amount: number;
}

/**
 * Unguarded journal entries of one reference type as parts of a larger statement (group commit): the CTEs
 * `je` (entry ids), `e` (entries), `la` (ledger accounts named) and `p` (postings, one row each), their five
 * parameters from `$first` on, how many postings `p` must insert (fewer: a posting named no ledger account),
 * and each merchant balance row's net move, for balanceStatement once the rest is written.
 */
export function entriesInsert(
  entries: JournalEntry[],
  refType: string,
  first: number,
): { ctes: string; params: unknown[]; postings: number; moves: BalanceMove[] } {
  if (!/^[a-z_]+$/.test(refType)) throw new Error(`bad reference type ${refType}`);
  const deltas = new Map<string, BalanceMove>();
  const postings: { ord: number; code: string; amount: number }[] = [];
  for (const [i, e] of entries.entries()) {
    if (e.guardAvailable) throw new Error('entriesInsert takes unguarded entries only');
    if (e.refType !== refType) throw new Error(`entry of ${e.refType} among ${refType} entries`);
    if (e.postings.reduce((acc, p) => acc + p.amount, 0) !== 0) throw new Error(`unbalanced entry ${e.kind}`);
    for (const p of e.postings) {
      if (!Number.isSafeInteger(p.amount)) throw new Error('posting amounts must be integer cents');
      if (p.amount === 0) continue;
      postings.push({ ord: i + 1, code: codeOf(p.target), amount: p.amount });
      if ('system' in p.target) continue;
      const key = codeOf(p.target);
      const d =
        deltas.get(key) ??
        ('recipientId' in p.target
          ? { accountId: 0, recipientId: p.target.recipientId, bucket: p.target.bucket, amount: 0 }
          : { accountId: p.target.accountId, bucket: p.target.bucket, amount: 0 });
      d.amount += p.amount;
      deltas.set(key, d);
    }
  }
  const $ = (n: number) => `$${first + n}`;
  const ctes = `je AS (
       SELECT month_id('journal_entries_id_seq') AS id, kind, ref_id, ord
         FROM unnest(${$(0)}::text[], ${$(1)}::bigint[]) WITH ORDINALITY AS x(kind, ref_id, ord)),
     e AS (INSERT INTO journal_entries (id, kind, ref_type, ref_id) SELECT id, kind, '${refType}', ref_id FROM je),
     la AS (SELECT id, code FROM ledger_accounts WHERE code = ANY(${$(3)}::text[])),
     p AS (
       INSERT INTO postings (entry_id, ledger_account_id, amount)
       SELECT je.id, la.id, q.amount
         FROM unnest(${$(2)}::bigint[], ${$(3)}::text[], ${$(4)}::bigint[]) AS q(ord, code, amount)
         JOIN je ON je.ord = q.ord JOIN la ON la.code = q.code
       RETURNING 1)`;
  return {
    ctes,
    params: [
      entries.map((e) => e.kind),
      entries.map((e) => e.refId),
      postings.map((p) => p.ord),
      postings.map((p) => p.code),
      postings.map((p) => p.amount),
    ],
    postings: postings.length,
    moves: [...deltas.values()].filter((d) => d.amount !== 0),
  };
}

/**
 * One statement that moves merchant balance rows by the given amounts: a call of move_balances (a migration
 * defines it), which locks them in postEntry's order and fails, and so stops that COMMIT, if a row is
 * missing. Its values are written into its text (integers and the bucket names, checked here), so it
 * needs no parameters and can share a round trip with COMMIT (Db.txEndingWith).
 */
export function balanceStatement(moves: BalanceMove[]): string {
  for (const { accountId, recipientId, bucket, amount } of moves) {
    if (!Number.isSafeInteger(accountId) || !Number.isSafeInteger(amount)) throw new Error('not an integer');
    if (recipientId !== undefined && !Number.isSafeInteger(recipientId)) throw new Error('not an integer');
    if (bucket !== 'available' && bucket !== 'blocked' && bucket !== 'receivable') {
      throw new Error(`unknown bucket ${bucket}`);
    }
  }
  const merchants = moves.filter((m) => m.recipientId === undefined);
  const recipients = moves.filter((m) => m.recipientId !== undefined);
  const list = (of: BalanceMove[], f: (m: BalanceMove) => string | number) => `'{${of.map(f).join(',')}}'`;
  const merchantArgs = `${list(merchants, (m) => m.accountId)}, ${list(merchants, (m) => m.bucket)}, ${list(merchants, (m) => m.amount)}`;
  // a split sale's recipients move after the merchants, in one function: the lock order postEntry keeps
  if (recipients.length === 0) return `SELECT move_balances(${merchantArgs})`;
  return `SELECT move_split_balances(${merchantArgs}, ${list(recipients, (m) => m.recipientId!)}, ${list(recipients, (m) => m.bucket)}, ${list(recipients, (m) => m.amount)})`;
}
