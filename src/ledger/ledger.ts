import type { Queryable } from '../platform/db/db.js';
import { ensureMonthPartitions } from '../platform/db/month-partitions.js';
import { AppError } from '../platform/errors/app-error.js';

export type Bucket = 'available' | 'blocked' | 'receivable';
/** Money outside the merchants: the processor (payers), payouts (PIX keys paid), fees (the company's revenue). */
export type SystemAccount = 'processor' | 'payouts' | 'fees';

/**
 * Where a posting lands: a merchant's bucket, a recipient's bucket (split payments: a platform account's
 * recipient holds a balance of its own), or a system account (money outside the gateway).
 */
export type LedgerTarget =
  | { accountId: number; bucket: Bucket }
  | { recipientId: number; bucket: Bucket }
  | { system: SystemAccount };

export interface Posting {
  target: LedgerTarget;
  /** Signed cents: positive adds to what the target holds. */
  amount: number;
}

export interface JournalEntry {
  kind: string;
  refType: string;
  refId: number;
  postings: Posting[];
  /** Refuse (INSUFFICIENT_BALANCE) instead of letting a merchant's or a recipient's `available` go below zero. */
  guardAvailable?: boolean;
}

/** A party that holds balances (a merchant's account or a recipient), as a posting names it; null for a system account. */
interface PartyRow {
  column: 'account_id' | 'recipient_id';
  id: number;
  bucket: Bucket;
  /** Lock order: merchants' rows first. */
  rank: number;
}

function partyOf(target: LedgerTarget): PartyRow | null {
  if ('accountId' in target)
    return { column: 'account_id', id: target.accountId, bucket: target.bucket, rank: 0 };
  if ('recipientId' in target)
    return { column: 'recipient_id', id: target.recipientId, bucket: target.bucket, rank: 1 };
  return null;
}

export function codeOf(target: LedgerTarget): string {
  if ('system' in target) return `system:${target.system}`;
  return 'recipientId' in target
    ? `recipient:${target.recipientId}:${target.bucket}`
    : `merchant:${target.accountId}:${target.bucket}`;
}

/** The target a ledger account's code names (`codeOf` read back). */
function targetOfCode(code: string): LedgerTarget {
  const [kind, id, bucket] = code.split(':');
  if (kind === 'system') return { system: id as SystemAccount };
  if (kind === 'recipient') return { recipientId: Number(id), bucket: bucket as Bucket };
  return { accountId: Number(id), bucket: bucket as Bucket };
}

/**
 * The postings that undo an entry already written (`kind` of `refType` `refId`, the one such entry): each of
 * its postings with its sign turned, for the caller to post in an entry of its own. An entry undone this way
 * is undone exactly, whatever changed since in what it was computed from. None when there is no such entry.
 */
export async function reversalOf(
  q: Queryable,
  kind: string,
  refType: string,
  refId: number,
): Promise<Posting[]> {
  const rows = await q.query<{ code: string; amount: string }>(
    `SELECT la.code, p.amount::text AS amount
       FROM journal_entries e
       JOIN postings p ON p.entry_id = e.id
       JOIN ledger_accounts la ON la.id = p.ledger_account_id
      WHERE e.ref_type = $1 AND e.ref_id = $2 AND e.kind = $3
      ORDER BY p.id`,
    [refType, refId, kind],
  );
  return rows.map((r) => ({ target: targetOfCode(r.code), amount: -Number(r.amount) }));
}

/** A recipient's three ledger accounts, made with the recipient (its balance is read, never upserted, after). */
export async function ensureRecipientLedger(q: Queryable, recipientId: number): Promise<void> {
  await q.query(
    `INSERT INTO ledger_accounts (code, recipient_id, bucket)
     SELECT 'recipient:' || $1::bigint || ':' || b, $1, b FROM unnest(ARRAY['available', 'blocked', 'receivable']) AS b
     ON CONFLICT DO NOTHING`,
    [recipientId],
  );
}

/**
 * A recipient's balance (split payments): its three buckets, and `total` as an account's (available + blocked:
 * the card installments still to come, `receivable`, are not part of it).
 */
export interface RecipientBalance {
  available: number;
  blocked: number;
  receivable: number;
  total: number;
}

export async function recipientBalances(
  q: Queryable,
  recipientIds: number[],
): Promise<Map<number, RecipientBalance>> {
  const rows = await q.query<{ recipient_id: number; bucket: Bucket; balance: number }>(
    'SELECT recipient_id, bucket, balance FROM ledger_accounts WHERE recipient_id = ANY($1::bigint[])',
    [recipientIds],
  );
  const out = new Map<number, RecipientBalance>();
  for (const id of recipientIds) out.set(id, { available: 0, blocked: 0, receivable: 0, total: 0 });
  for (const r of rows) {
    const b = out.get(Number(r.recipient_id))!;
    b[r.bucket] = Number(r.balance);
    if (r.bucket !== 'receivable') b.total += Number(r.balance);
  }
  return out;
}

export async function ensureMerchantLedger(q: Queryable, accountId: number): Promise<void> {
  await q.query(
    `INSERT INTO ledger_accounts (code, account_id, bucket) VALUES
       ($2, $1, 'available'), ($3, $1, 'blocked'), ($4, $1, 'receivable')
     ON CONFLICT DO NOTHING`,
    [
      accountId,
      `merchant:${accountId}:available`,
      `merchant:${accountId}:blocked`,
      `merchant:${accountId}:receivable`,
    ],
  );
}

/** A party that holds balances: a merchant's account or a recipient. */
export type BalanceHolder = { accountId: number } | { recipientId: number };

/**
 * Locks every balance row of these parties (each bucket) in postEntry's one order, merchants' before recipients',
 * each by id and bucket: for a transaction about to post several entries whose rows come in another order across
 * them (a dispute's loss takes from blocked first, then from available), which would otherwise deadlock with a
 * single entry taking the same rows in order (a refund's hold: available, then blocked).
 */
export async function lockBalances(tx: Queryable, parties: readonly BalanceHolder[]): Promise<void> {
  const ids = (pick: (p: BalanceHolder) => number | undefined) =>
    [...new Set(parties.map(pick).filter((id): id is number => id !== undefined))].sort((a, b) => a - b);
  const merchants = ids((p) => ('accountId' in p ? p.accountId : undefined));
  const recipients = ids((p) => ('recipientId' in p ? p.recipientId : undefined));
  await tx.query(
    `SELECT 1 FROM ledger_accounts
      WHERE account_id = ANY($1::bigint[]) OR recipient_id = ANY($2::bigint[])
      ORDER BY account_id IS NULL, COALESCE(account_id, recipient_id), bucket
        FOR UPDATE`,
    [merchants, recipients],
  );
}

/**
 * Writes a balanced journal entry and updates the maintained merchant balances, inside the caller's
 * transaction. A merchant's account and a recipient are parties alike: their rows are updated one by one in one
 * fixed order (merchants, then recipients, each by id and bucket) so concurrent entries cannot deadlock (a
 * transaction posting several entries posts them in account order too), under one guard rule: a guarded
 * debit uses `balance >= amount` in the UPDATE itself, whoever the party. System accounts are
 * not maintained (they would be a hot row every transaction serializes on): their balance is the sum of
 * their postings, which `ledger verify` derives. An entry that moves nothing (every amount zero) is not
 * written: null.
 */
export async function postEntry(tx: Queryable, entry: JournalEntry): Promise<number | null> {
  const postings = entry.postings.filter((p) => p.amount !== 0);
  const sum = postings.reduce((acc, p) => acc + p.amount, 0);
  if (sum !== 0) throw new Error(`unbalanced journal entry ${entry.kind}: postings sum to ${sum}`);
  if (postings.length === 0) return null;
  if (postings.some((p) => !Number.isSafeInteger(p.amount)))
    throw new Error('posting amounts must be integer cents');

  // every party's rows in one order, merchants' before recipients', each by (id, bucket): the order
  // move_split_balances takes too, so concurrent entries cannot deadlock
  const parties = postings
    .flatMap((p) => {
      const party = partyOf(p.target);
      return party ? [{ ...party, amount: p.amount }] : [];
    })
    .sort((a, b) => a.rank - b.rank || a.id - b.id || a.bucket.localeCompare(b.bucket));
  for (const p of parties) {
    // one guard rule for every party: a guarded entry never takes an `available` below zero
    const guarded = entry.guardAvailable === true && p.bucket === 'available' && p.amount < 0;
    const move = () =>
      tx.query(
        `UPDATE ledger_accounts SET balance = balance + $1
          WHERE ${p.column} = $2 AND bucket = $3 ${guarded ? 'AND balance + $1 >= 0' : ''}
          RETURNING id`,
        [p.amount, p.id, p.bucket],
      );
    if ((await move()).length > 0) continue;
    if (guarded) throw new AppError('INSUFFICIENT_BALANCE', 'Insufficient available balance');
    // a merchant's ledger is made on its first posting; a recipient's is made with the recipient
    if (p.column === 'recipient_id') throw new Error(`recipient ${p.id} has no ${p.bucket} ledger account`);
    await ensureMerchantLedger(tx, p.id);
    await move();
  }
  const [row] = await tx.query<{ id: number; written: number }>(
    `WITH e AS (INSERT INTO journal_entries (kind, ref_type, ref_id) VALUES ($1, $2, $3) RETURNING id),
          p AS (INSERT INTO postings (entry_id, ledger_account_id, amount)
                SELECT e.id, la.id, v.amount
                  FROM e, unnest($4::text[], $5::bigint[]) AS v(code, amount)
                  JOIN ledger_accounts la ON la.code = v.code
                RETURNING 1)
     SELECT id, (SELECT count(*) FROM p)::int AS written FROM e`,
    [
      entry.kind,
      entry.refType,
      entry.refId,
      postings.map((p) => codeOf(p.target)),
      postings.map((p) => p.amount),
    ],
  );
  // a posting whose ledger account does not exist finds no row in the join: refuse the entry (the caller's
  // transaction rolls back) instead of writing it without that posting
  if (row!.written !== postings.length) throw new Error(`a posting of ${entry.kind} names no ledger account`);
  return row!.id;
}

export interface Balance {
  available: number;
  blocked: number;
  total: number;
}

export async function getBalance(q: Queryable, accountId: number): Promise<Balance> {
  let rows = await q.query<{ bucket: Bucket; balance: number }>(
    'SELECT bucket, balance FROM ledger_accounts WHERE account_id = $1',
    [accountId],
    { prepare: 'ledger_balance' },
  );
  if (rows.length < 2) {
    await ensureMerchantLedger(q, accountId);
    rows = await q.query('SELECT bucket, balance FROM ledger_accounts WHERE account_id = $1', [accountId]);
  }
  const available = rows.find((r) => r.bucket === 'available')?.balance ?? 0;
  const blocked = rows.find((r) => r.bucket === 'blocked')?.balance ?? 0;
  return { available, blocked, total: available + blocked };
}

/**
 * Many transfers between two buckets of one merchant (e.g. available → blocked for a batch of cashouts), in
 * one statement: one balanced entry per item, both maintained balances moved by the total (a guarded
 * debit when `guardAvailable`). Same effect as one postEntry per item; refuses with INSUFFICIENT_BALANCE
 * as a whole if the guard fails, before anything is written. With `recipientId` the buckets are that
 * recipient's (a recipient's cashouts) instead of the merchant's.
 */
export async function postBucketTransfers(
  tx: Queryable,
  transfer: {
    accountId: number;
    recipientId?: number | null | undefined;
    from: Bucket;
    to: Bucket;
    kind: string;
    refType: string;
    items: { refId: number; amount: number }[];
    guardAvailable?: boolean;
  },
): Promise<void> {
  const items = transfer.items.filter((i) => i.amount !== 0);
  if (items.length === 0) return;
  if (items.some((i) => !Number.isSafeInteger(i.amount) || i.amount < 0)) {
    throw new Error('transfer amounts must be positive integer cents');
  }
  const total = items.reduce((acc, i) => acc + i.amount, 0);
  const guarded = transfer.guardAvailable && transfer.from === 'available';
  // Balance rows are updated in the fixed order (bucket name) postEntry uses, so the two cannot deadlock.
  const [first, second] = [transfer.from, transfer.to].sort();
  const recipient = transfer.recipientId != null;
  const holder = recipient ? 'recipient_id' : 'account_id';
  const [row] = await tx.query<{ moved: boolean }>(
    `WITH b1 AS (
       UPDATE ledger_accounts SET balance = balance + CASE WHEN bucket = $3 THEN -$5::bigint ELSE $5::bigint END
        WHERE ${holder} = $1 AND bucket = $8 ${guarded ? 'AND (bucket <> $3 OR balance >= $5::bigint)' : ''}
        RETURNING id, bucket),
     b2 AS (
       UPDATE ledger_accounts SET balance = balance + CASE WHEN bucket = $3 THEN -$5::bigint ELSE $5::bigint END
        WHERE ${holder} = $1 AND bucket = $9 AND EXISTS (SELECT 1 FROM b1)
        RETURNING id, bucket),
     moved AS (SELECT * FROM b1 UNION ALL SELECT * FROM b2),
     e AS (
       INSERT INTO journal_entries (kind, ref_type, ref_id)
       SELECT $2, $4, r FROM unnest($6::bigint[]) AS r WHERE (SELECT count(*) FROM moved) = 2
       RETURNING id, ref_id),
     p AS (
       INSERT INTO postings (entry_id, ledger_account_id, amount)
       SELECT e.id, m.id, CASE WHEN m.bucket = $3 THEN -v.amount ELSE v.amount END
         FROM e JOIN unnest($6::bigint[], $7::bigint[]) AS v(ref_id, amount) ON v.ref_id = e.ref_id
        CROSS JOIN moved m)
     SELECT (SELECT count(*) FROM moved) = 2 AS moved`,
    [
      recipient ? transfer.recipientId : transfer.accountId,
      transfer.kind,
      transfer.from,
      transfer.refType,
      total,
      items.map((i) => i.refId),
      items.map((i) => i.amount),
      first,
      second,
    ],
    // a cashout batch's hottest statement: planned once per connection (each variant)
    {
      prepare: `ledger_bucket_transfer${guarded ? '_guarded' : ''}${recipient ? '_recipient' : ''}`,
    },
  );
  if (!row?.moved) {
    if (guarded) throw new AppError('INSUFFICIENT_BALANCE', 'Insufficient available balance');
    const who = recipient ? `recipient ${transfer.recipientId}` : `merchant ${transfer.accountId}`;
    throw new Error(`${who} has no ${transfer.from}/${transfer.to} ledger accounts`);
  }
}

/**
 * A subquery: the account's available balance (one row, `balance`), its row locked until commit with `lock`,
 * for statements that read it beside their own tables in one round trip.
 */
export function availableBalanceSql(accountIdExpr: string, lock: boolean): string {
  return `SELECT balance FROM ledger_accounts WHERE account_id = ${accountIdExpr} AND bucket = 'available'${lock ? ' FOR UPDATE' : ''}`;
}

/** A recipient's available balance, its row locked until commit (an automatic payout takes all of it). */
export async function lockRecipientAvailable(tx: Queryable, recipientId: number): Promise<number> {
  const [row] = await tx.query<{ balance: number }>(
    `SELECT balance FROM ledger_accounts WHERE recipient_id = $1 AND bucket = 'available' FOR UPDATE`,
    [recipientId],
  );
  return Number(row?.balance ?? 0);
}

/** `availableBalanceSql` for a recipient's available balance (its cashouts). */
export function recipientAvailableBalanceSql(recipientIdExpr: string, lock: boolean): string {
  return `SELECT balance FROM ledger_accounts WHERE recipient_id = ${recipientIdExpr} AND bucket = 'available'${lock ? ' FOR UPDATE' : ''}`;
}

/** The ledger's coming months (journal entries and postings are partitioned by month, migration 271). */
export function ensureLedgerPartitions(db: Queryable): Promise<number> {
  return ensureMonthPartitions(db, ['journal_entries', 'postings']);
}
