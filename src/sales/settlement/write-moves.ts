import type { JournalEntry } from '../../ledger/index.js';
import { balanceStatement, entriesInsert } from '../../ledger/index.js';
import type { Queryable } from '../../platform/db/db.js';
import { countWhenCommitted, factsInsert, type NotificationFact } from '../../webhooks/index.js';
import type { SaleRow } from '../types.js';
import type { SaleStatus } from './status-machine.js';

export interface SaleUpdate {
  /** The sale as locked by the caller. */
  before: SaleRow;
  status: SaleStatus;
  reserveHeld: boolean;
}

/** The columns a move changes (public_json by the sales_public_json trigger): all a written sale re-reads. */
type Changed = Pick<
  SaleRow,
  | 'id'
  | 'status'
  | 'reserve_held'
  | 'paid_amount'
  | 'refunded_amount'
  | 'refunded_net'
  | 'refund_pending_net'
  | 'updated_at'
  | 'completed_at'
  | 'refusal_reason'
  | 'public_json'
>;

/**
 * A card sale refused by a status report that gave no reason (the sandbox's status route, a processor's callback
 * naming only the status) carries the acquirer's generic denial, as the contract gives every refused card sale a
 * `refusalReason`; one the acquirer's own answer gave keeps it.
 */
export const UNSTATED_CARD_REFUSAL = { code: '05', message: 'Não Autorizada' } as const;

/**
 * Everything checked moves of distinct locked sales write, in ONE statement (one round trip whatever their
 * number): the sales' status (completed_at on the first PAGO), their notification facts with their outbox
 * places (the outbox's factsInsert) and their balanced journal entries with postings (the ledger's
 * entriesInsert, unguarded). The merchant balance rows are not touched here: `balances` is the statement that
 * moves each of them once by the sum of its postings (balanceStatement), for the caller to run last, so the
 * rows every settlement of a merchant shares stay locked as briefly as possible. Returns the sales as stored,
 * in the order given (each read back only in the columns a move changes, the rest as locked).
 */
/**
 * The sale as writeMoves will store it moved to `to`, in the columns its notification bodies read: the status,
 * what the payer paid (set on PAGO) and what was refunded (all of it on ESTORNADO). The bodies are built before
 * the one statement that writes the move and its facts, so they are built from this, never from the row as it
 * was locked (whose refundedAmount a sale.refunded of the last refund would tell as the total before it).
 */
export function movedSale(before: SaleRow, to: SaleStatus): SaleRow {
  const paid = before.paid_amount ?? before.amount;
  return {
    ...before,
    status: to,
    paid_amount: to === 'PAGO' ? paid : before.paid_amount,
    refunded_amount: to === 'ESTORNADO' ? paid : before.refunded_amount,
    refunded_net: to === 'ESTORNADO' ? before.net_amount : before.refunded_net,
    refund_pending_net: to === 'ESTORNADO' ? 0 : before.refund_pending_net,
    refusal_reason:
      to === 'RECUSADO' && before.refusal_reason === null && isCardMethod(before.payment_method)
        ? { ...UNSTATED_CARD_REFUSAL }
        : before.refusal_reason,
  };
}

const isCardMethod = (m: SaleRow['payment_method']) => m === 'CREDIT_CARD' || m === 'DEBIT_CARD';

export async function writeMoves(
  tx: Queryable,
  updates: SaleUpdate[],
  facts: NotificationFact[],
  entries: JournalEntry[],
): Promise<{ sales: SaleRow[]; balances: string | null }> {
  const notifications = factsInsert(facts, 4);
  const ledger = entriesInsert(entries, 'sale', 13);
  const rows = await tx.query<Changed & { _postings: number }>(
    `WITH v AS (
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::bool[]) AS v(id, status, reserve_held)),
     s AS (
       UPDATE sales s SET status = v.status, reserve_held = v.reserve_held, updated_at = now(),
           -- what the payer paid, on every path to PAGO (a boleto's Pix or barcode recorded it before)
           paid_amount = CASE WHEN v.status = 'PAGO' THEN COALESCE(s.paid_amount, s.amount) ELSE s.paid_amount END,
           -- refunded in full, however it came (its last refund, a dispute lost, a devolução made outside)
           refunded_amount = CASE WHEN v.status = 'ESTORNADO' THEN COALESCE(s.paid_amount, s.amount)
                                  ELSE s.refunded_amount END,
           refunded_net = CASE WHEN v.status = 'ESTORNADO' THEN s.net_amount ELSE s.refunded_net END,
           refund_pending_net = CASE WHEN v.status = 'ESTORNADO' THEN 0 ELSE s.refund_pending_net END,
           completed_at = CASE WHEN v.status = 'PAGO'
                               THEN COALESCE(s.completed_at, date_trunc('milliseconds', now()))
                               ELSE s.completed_at END,
           -- a card refused by a report with no reason of its own: the acquirer's generic denial (movedSale)
           refusal_reason = CASE WHEN v.status = 'RECUSADO' AND s.refusal_reason IS NULL
                                      AND s.payment_method IN ('CREDIT_CARD', 'DEBIT_CARD')
                                 THEN '${JSON.stringify(UNSTATED_CARD_REFUSAL)}'::json
                                 ELSE s.refusal_reason END
         -- = ANY gives the planner the index (it guesses 100 rows for unnest and would scan every sale)
         FROM v WHERE s.id = ANY($1::bigint[]) AND s.id = v.id
       RETURNING s.id, s.status, s.reserve_held, s.paid_amount, s.refunded_amount, s.refunded_net, s.refund_pending_net,
                 s.updated_at, s.completed_at, s.refusal_reason, s.public_json),
     ${notifications.ctes},
     ${ledger.ctes}
     SELECT s.*, (SELECT count(*) FROM p)::int AS _postings FROM s`,
    [
      updates.map((u) => u.before.id),
      updates.map((u) => u.status),
      updates.map((u) => u.reserveHeld),
      ...notifications.params,
      ...ledger.params,
    ],
    // planned once per connection: the text is fixed, and its planning cost about as much as its execution
    { prepare: 'settle_write_moves_v8' },
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const first = rows[0];
  if (rows.length !== updates.length || !first) throw new Error('a moved sale was not found');
  // every merchant has its ledger rows from its creation (accounts.service); a missing one is a bug
  if (first._postings !== ledger.postings) throw new Error('a posting names no ledger account');
  countWhenCommitted(tx, facts);
  const sales = updates.map((u): SaleRow => {
    const { _postings, ...changed } = byId.get(u.before.id)!;
    return { ...u.before, ...changed };
  });
  return { sales, balances: ledger.moves.length > 0 ? balanceStatement(ledger.moves) : null };
}
