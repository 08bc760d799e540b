import { codeOf, type JournalEntry } from '../../ledger/ledger.js';
import { type Queryable, whenCommitted } from '../../platform/db/db.js';
import { countFact } from '../../platform/observability/metrics.js';
import { factColumns, type NotificationFact } from '../../webhooks/outbox.js';
import type { SaleRow } from '../types.js';
import type { SaleStatus } from './status-machine.js';

export interface SaleUpdate {
  /** The sale as locked by the caller. */
  before: SaleRow;
  status: SaleStatus;
  reserveHeld: boolean;
  refundHeld: boolean;
}

/** The columns a move changes (public_json by the sales_public_json trigger): all a written sale re-reads. */
type Changed = Pick<
  SaleRow,
  'id' | 'status' | 'reserve_held' | 'refund_held' | 'updated_at' | 'completed_at' | 'public_json'
>;

/**
 * Everything checked moves of distinct locked sales write, in ONE statement (one round trip whatever their
 * number): the sales' status (completed_at on the first PAGO), their notification facts with their outbox
 * places (as recordNotification writes them) and their balanced journal entries with postings (as postEntry
 * writes them, unguarded). The merchant balance rows are not touched here: `balances` is the statement that
 * moves each of them once by the sum of its postings (balanceStatement), for the caller to run last, so the
 * rows every settlement of a merchant shares stay locked as briefly as possible. Returns the sales as stored,
 * in the order given (each read back only in the columns a move changes, the rest as locked).
 */
export async function writeMoves(
  tx: Queryable,
  updates: SaleUpdate[],
  facts: NotificationFact[],
  entries: JournalEntry[],
): Promise<{ sales: SaleRow[]; balances: string | null }> {
  const deltas = new Map<string, { accountId: number; bucket: string; amount: number }>();
  const postings: { ord: number; code: string; amount: number }[] = [];
  for (const [i, e] of entries.entries()) {
    if (e.guardAvailable) throw new Error('writeMoves takes unguarded entries only');
    if (e.postings.reduce((acc, p) => acc + p.amount, 0) !== 0) throw new Error(`unbalanced entry ${e.kind}`);
    for (const p of e.postings) {
      if (!Number.isSafeInteger(p.amount)) throw new Error('posting amounts must be integer cents');
      if (p.amount === 0) continue;
      postings.push({ ord: i + 1, code: codeOf(p.target), amount: p.amount });
      if (!('accountId' in p.target)) continue;
      const key = `${p.target.accountId}:${p.target.bucket}`;
      const d = deltas.get(key) ?? { accountId: p.target.accountId, bucket: p.target.bucket, amount: 0 };
      d.amount += p.amount;
      deltas.set(key, d);
    }
  }
  const moved = [...deltas.values()].filter((d) => d.amount !== 0);
  const rows = await tx.query<Changed & { _postings: number }>(
    `WITH v AS (
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::bool[], $18::bool[]) AS v(id, status, reserve_held, refund_held)),
     s AS (
       UPDATE sales s SET status = v.status, reserve_held = v.reserve_held, refund_held = v.refund_held,
           updated_at = now(),
           completed_at = CASE WHEN v.status = 'PAGO'
                               THEN COALESCE(s.completed_at, date_trunc('milliseconds', now()))
                               ELSE s.completed_at END
         -- = ANY gives the planner the index (it guesses 100 rows for unnest and would scan every sale)
         FROM v WHERE s.id = ANY($1::bigint[]) AND s.id = v.id
       RETURNING s.id, s.status, s.reserve_held, s.refund_held, s.updated_at, s.completed_at, s.public_json),
     n AS (
       INSERT INTO notification_events
         (id, account_id, event_type, subject_type, subject_id, webhook_body, postback_url, postback_body,
          postback_host)
       SELECT * FROM unnest($4::uuid[], $5::bigint[], $6::text[], $7::text[], $8::bigint[], $9::text[],
                            $10::text[], $11::text[], $12::text[])
       RETURNING id, created_at),
     o AS (INSERT INTO notification_outbox (event_id, created_at) SELECT id, created_at FROM n ORDER BY id),
     je AS (
       SELECT nextval('journal_entries_id_seq') AS id, kind, ref_id, ord
         FROM unnest($13::text[], $14::bigint[]) WITH ORDINALITY AS x(kind, ref_id, ord)),
     e AS (INSERT INTO journal_entries (id, kind, ref_type, ref_id) SELECT id, kind, 'sale', ref_id FROM je),
     la AS (SELECT id, code FROM ledger_accounts WHERE code = ANY($16::text[])),
     p AS (
       INSERT INTO postings (entry_id, ledger_account_id, amount)
       SELECT je.id, la.id, q.amount
         FROM unnest($15::bigint[], $16::text[], $17::bigint[]) AS q(ord, code, amount)
         JOIN je ON je.ord = q.ord JOIN la ON la.code = q.code
       RETURNING 1)
     SELECT s.*, (SELECT count(*) FROM p)::int AS _postings FROM s`,
    [
      updates.map((u) => u.before.id),
      updates.map((u) => u.status),
      updates.map((u) => u.reserveHeld),
      ...factColumns(facts),
      entries.map((e) => e.kind),
      entries.map((e) => e.refId),
      postings.map((p) => p.ord),
      postings.map((p) => p.code),
      postings.map((p) => p.amount),
      updates.map((u) => u.refundHeld),
    ],
    // planned once per connection: the text is fixed, and its planning cost about as much as its execution
    { prepare: 'settle_write_moves_v4' },
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const first = rows[0];
  if (rows.length !== updates.length || !first) throw new Error('a moved sale was not found');
  // every merchant has its ledger rows from its creation (accounts.service); a missing one is a bug
  if (first._postings !== postings.length) throw new Error('a posting names no ledger account');
  whenCommitted(tx, () => {
    for (const f of facts) countFact(f.subjectType, f.webhookBody);
  });
  const sales = updates.map((u): SaleRow => {
    const { _postings, ...changed } = byId.get(u.before.id)!;
    return { ...u.before, ...changed };
  });
  return { sales, balances: moved.length > 0 ? balanceStatement(moved) : null };
}

/**
 * One statement that moves merchant balance rows by the given amounts: a call of move_balances (migration
 * 124), which locks them in postEntry's order and fails, and so stops that COMMIT, if a row is missing. Its
 * values are written into its text (integers and the two bucket names, checked here), so it needs no
 * parameters and can share a round trip with COMMIT (Db.txEndingWith).
 */
export function balanceStatement(moves: { accountId: number; bucket: string; amount: number }[]): string {
  for (const { accountId, bucket, amount } of moves) {
    if (!Number.isSafeInteger(accountId) || !Number.isSafeInteger(amount)) throw new Error('not an integer');
    if (bucket !== 'available' && bucket !== 'blocked') throw new Error(`unknown bucket ${bucket}`);
  }
  const list = (f: (m: (typeof moves)[number]) => string | number) => moves.map(f).join(',');
  return `SELECT move_balances('{${list((m) => m.accountId)}}', '{${list((m) => m.bucket)}}', '{${list((m) => m.amount)}}')`;
}
