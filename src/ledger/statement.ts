import { createHmac, hkdfSync } from 'node:crypto';
import { constantTimeEqual } from '../platform/crypto/secrets.js';
import type { Queryable } from '../platform/db/db.js';
import { validation } from '../platform/errors/app-error.js';

/** One line of a merchant's statement: a journal entry's effect on its three buckets, and the balances after it. */
export interface StatementLine {
  id: number;
  createdAt: string;
  kind: string;
  description: string;
  refType: string;
  refId: number;
  availableDelta: number;
  blockedDelta: number;
  /** Card installments still to settle (Agenda de recebíveis): a card sale's net enters here, not available. */
  receivableDelta: number;
  availableAfter: number;
  blockedAfter: number;
  receivableAfter: number;
}

/** What each kind of journal entry is, in the statement's words (a kind without one shows as itself). */
export const ENTRY_DESCRIPTIONS: Record<string, string> = {
  'sale.paid': 'Venda paga (valor líquido)',
  'sale.refunded': 'Estorno da venda (valor devolvido ao comprador)',
  'sale.reserve_released': 'Reserva liberada',
  // a dispute moves the sale's net first, then adjusts to the amount disputed: two lines of one contestação
  'sale.dispute_opened': 'Contestação aberta: líquido da venda bloqueado',
  'sale.dispute_won': 'Contestação ganha: líquido da venda liberado',
  // a lost dispute and one the merchant accepted move the same money: one words for both
  'sale.dispute_lost': 'Contestação perdida ou aceita: líquido da venda',
  'sale.dispute_released': 'Contestação perdida ou aceita em parte: restante liberado',
  'sale.refund_held': 'Estorno solicitado (valor bloqueado)',
  'sale.refund_released': 'Estorno não realizado (valor liberado)',
  'receivable.settled': 'Parcela de cartão disponível',
  'withdrawal.create': 'Saque solicitado (valor bloqueado)',
  'withdrawal.complete': 'Saque concluído',
  'withdrawal.reject': 'Saque recusado (valor devolvido)',
  'withdrawal.cancel': 'Saque cancelado (valor devolvido)',
  'withdrawal.withdraw': 'Saque cancelado no provedor (valor devolvido)',
  'withdrawal.refuse': 'Saque recusado na análise (valor devolvido)',
  'dispute.opened': 'Contestação aberta: ajuste ao valor contestado',
  'dispute.won': 'Contestação ganha: ajuste liberado',
  'dispute.lost': 'Contestação perdida: ajuste ao valor contestado',
  'dispute.accepted': 'Contestação aceita: ajuste ao valor contestado',
  'anticipation.paid': 'Antecipação de recebíveis paga (valor líquido)',
};

/**
 * Whose statement: a merchant account (its id), or one of a platform's recipients (split payments), whose
 * lines are its own ledger accounts' in the same shape.
 */
export type StatementOwner = number | { recipientId: number };

const ownerTag = (owner: StatementOwner): string =>
  typeof owner === 'number' ? String(owner) : `recipient:${owner.recipientId}`;

/** Where a page starts: the id below which its lines are, and the balances right after its first line. */
interface Position {
  before: number;
  /** The period's first entry id (from `from`, found once by the first page). */
  lower: number;
  available: number;
  blocked: number;
  receivable: number;
}

const NO_BOUND = Number.MAX_SAFE_INTEGER;

/**
 * Statement pages, newest first, each O(page size) however long the account's history: the first page
 * starts from the current balances (less whatever came after `to`), and each line's balances are the
 * previous line's less that line's change. The cursor carries where the next page starts, signed so that
 * running balances cannot be forged.
 */
export class Statement {
  private readonly key: Buffer;

  /** `secretsKey` also seals stored secrets (AES-GCM): the cursors are signed with a key derived for them alone. */
  constructor(secretsKey: Buffer) {
    this.key = Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), 'statement cursors', 32));
  }

  async page(
    db: Queryable,
    owner: StatementOwner,
    q: { limit: number; cursor?: string; from: string | null; to: string | null },
  ): Promise<{ data: StatementLine[]; nextCursor: string | null }> {
    const position = q.cursor ? this.decode(q.cursor, owner) : null;
    const buckets = await bucketsOf(db, owner);
    if (!buckets) return { data: [], nextCursor: null };
    const start = position ?? (await startOf(db, buckets, q.from, q.to));
    const rows = await entries(db, buckets, start.before, start.lower, q.limit + 1);
    const lines = rows.slice(0, q.limit);
    let available = start.available;
    let blocked = start.blocked;
    let receivable = start.receivable;
    const data = lines.map((r) => {
      const line: StatementLine = {
        id: r.id,
        createdAt: new Date(r.created_at).toISOString(),
        kind: r.kind,
        description: ENTRY_DESCRIPTIONS[r.kind] ?? r.kind,
        refType: r.ref_type,
        refId: r.ref_id,
        availableDelta: r.available_delta,
        blockedDelta: r.blocked_delta,
        receivableDelta: r.receivable_delta,
        availableAfter: available,
        blockedAfter: blocked,
        receivableAfter: receivable,
      };
      available -= r.available_delta;
      blocked -= r.blocked_delta;
      receivable -= r.receivable_delta;
      return line;
    });
    const last = lines[lines.length - 1];
    const more = rows.length > q.limit && last;
    return {
      data,
      nextCursor: more
        ? this.encode({ before: last.id, lower: start.lower, available, blocked, receivable }, owner)
        : null,
    };
  }

  /** Every line (newest first) for the CSV export, one page of 1,000 at a time. */
  async *all(db: Queryable, owner: StatementOwner, q: { from: string | null; to: string | null }) {
    let cursor: string | undefined;
    do {
      const page = await this.page(db, owner, { ...q, limit: 1000, cursor });
      yield* page.data;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }

  private sign(text: string, owner: StatementOwner): string {
    return createHmac('sha256', this.key)
      .update(`statement:${ownerTag(owner)}:${text}`)
      .digest('base64url')
      .slice(0, 22);
  }

  private encode(p: Position, owner: StatementOwner): string {
    const text = `${p.before}.${p.lower}.${p.available}.${p.blocked}.${p.receivable}`;
    return Buffer.from(`${text}.${this.sign(text, owner)}`).toString('base64url');
  }

  private decode(cursor: string, owner: StatementOwner): Position {
    const raw = /^[A-Za-z0-9_-]{1,200}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
    const m =
      /^((\d{1,16})\.(\d{1,16})\.(-?\d{1,16})\.(-?\d{1,16})\.(-?\d{1,16}))\.([A-Za-z0-9_-]{22})$/.exec(raw);
    if (!m || !constantTimeEqual(m[7]!, this.sign(m[1]!, owner))) {
      throw validation('cursor is not one this list gave');
    }
    const [before, lower, available, blocked, receivable] = m.slice(2, 7).map(Number) as [
      number,
      number,
      number,
      number,
      number,
    ];
    return { before, lower, available, blocked, receivable };
  }
}

/** The owner's buckets (ledger account ids) and their balances; null before its first entry. */
export interface Buckets {
  available: { id: number; balance: number };
  blocked: { id: number; balance: number };
  /** An owner whose ledger has no receivable bucket: id 0 (no posting has it), balance 0. */
  receivable: { id: number; balance: number };
}

export async function bucketsOf(db: Queryable, owner: StatementOwner): Promise<Buckets | null> {
  const rows = await db.query<{
    id: number;
    bucket: 'available' | 'blocked' | 'receivable';
    balance: number;
  }>(
    typeof owner === 'number'
      ? 'SELECT id, bucket, balance FROM ledger_accounts WHERE account_id = $1'
      : 'SELECT id, bucket, balance FROM ledger_accounts WHERE recipient_id = $1',
    [typeof owner === 'number' ? owner : owner.recipientId],
  );
  const available = rows.find((r) => r.bucket === 'available');
  const blocked = rows.find((r) => r.bucket === 'blocked');
  // an account whose ledger has no receivable bucket yet: an id no posting has, balance 0
  const receivable = rows.find((r) => r.bucket === 'receivable') ?? { id: 0, balance: 0 };
  return available && blocked ? { available, blocked, receivable } : null;
}

/**
 * The first entry created at or after a time (through the (created_at, id) index, O(log n)): a period's
 * bound as an entry id. Adjacent periods share it, so each line is in exactly one (decisions.md). An entry's
 * id carries the month it was made in (migration 271), so the months before the time's are not read; the
 * entries from before the ledger was partitioned (ids below 2^40) are.
 */
export async function firstEntryAtOrAfter(db: Queryable, at: string): Promise<number> {
  const [row] = await db.query<{ id: number }>(
    `SELECT id FROM journal_entries
      WHERE created_at >= $1::timestamptz
        AND (id >= (partition_month($1::timestamptz)::bigint << 40) OR id < 1099511627776)
      ORDER BY created_at, id LIMIT 1`,
    [at],
  );
  return row?.id ?? NO_BOUND;
}

/**
 * The first page's position: the period's bounds as entry ids, and the balances right after its last
 * entry (today's balances less the postings since `to`, summed from the covering index of migration 120).
 * Later pages carry all of it in their cursor, so only the first page pays for finding the bounds.
 */
async function startOf(db: Queryable, b: Buckets, from: string | null, to: string | null): Promise<Position> {
  const lower = from ? await firstEntryAtOrAfter(db, from) : 0;
  if (!to) {
    return {
      before: NO_BOUND,
      lower,
      available: b.available.balance,
      blocked: b.blocked.balance,
      receivable: b.receivable.balance,
    };
  }
  const before = await firstEntryAtOrAfter(db, to);
  const [later] = await db.query<{ available: number; blocked: number; receivable: number }>(
    `SELECT (SELECT COALESCE(sum(amount), 0) FROM postings
              WHERE ledger_account_id = $1 AND entry_id >= $3)::bigint AS available,
            (SELECT COALESCE(sum(amount), 0) FROM postings
              WHERE ledger_account_id = $2 AND entry_id >= $3)::bigint AS blocked,
            (SELECT COALESCE(sum(amount), 0) FROM postings
              WHERE ledger_account_id = $4 AND entry_id >= $3)::bigint AS receivable`,
    [b.available.id, b.blocked.id, before, b.receivable.id],
  );
  return {
    before,
    lower,
    available: b.available.balance - (later?.available ?? 0),
    blocked: b.blocked.balance - (later?.blocked ?? 0),
    receivable: b.receivable.balance - (later?.receivable ?? 0),
  };
}

interface EntryRow {
  id: number;
  created_at: Date;
  kind: string;
  ref_type: string;
  ref_id: number;
  available_delta: number;
  blocked_delta: number;
  receivable_delta: number;
}

/**
 * Up to `limit` entries touching the account's buckets with lower <= id < before, newest first. The
 * buckets' ids are parameters (not a subquery) so each walk is planned on (ledger_account_id, entry_id):
 * with a subquery the planner could not know the id and walked all postings by entry id instead.
 */
function entries(
  db: Queryable,
  b: Buckets,
  before: number,
  lower: number,
  limit: number,
): Promise<EntryRow[]> {
  return db.query<EntryRow>(
    `WITH ids AS (
       SELECT DISTINCT entry_id FROM (
         (SELECT entry_id FROM postings WHERE ledger_account_id = $1 AND entry_id < $3 AND entry_id >= $4
           ORDER BY entry_id DESC LIMIT $5)
         UNION ALL
         (SELECT entry_id FROM postings WHERE ledger_account_id = $2 AND entry_id < $3 AND entry_id >= $4
           ORDER BY entry_id DESC LIMIT $5)
         UNION ALL
         (SELECT entry_id FROM postings WHERE ledger_account_id = $6 AND entry_id < $3 AND entry_id >= $4
           ORDER BY entry_id DESC LIMIT $5)) u
       ORDER BY entry_id DESC LIMIT $5)
     SELECT e.id, e.created_at, e.kind, e.ref_type, e.ref_id,
            COALESCE(sum(p.amount) FILTER (WHERE p.ledger_account_id = $1), 0)::bigint AS available_delta,
            COALESCE(sum(p.amount) FILTER (WHERE p.ledger_account_id = $2), 0)::bigint AS blocked_delta,
            COALESCE(sum(p.amount) FILTER (WHERE p.ledger_account_id = $6), 0)::bigint AS receivable_delta
       FROM ids JOIN journal_entries e ON e.id = ids.entry_id
       JOIN postings p ON p.entry_id = e.id AND p.ledger_account_id IN ($1, $2, $6)
      GROUP BY e.id ORDER BY e.id DESC`,
    [b.available.id, b.blocked.id, before, lower, limit, b.receivable.id],
  );
}
