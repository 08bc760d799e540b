import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../auth/secrets.js';
import type { Queryable } from '../platform/db.js';
import { validation } from '../platform/errors.js';
import { getBalance } from './ledger.js';

/** One line of a merchant's statement: a journal entry's effect on its two buckets, and the balances after it. */
export interface StatementLine {
  id: number;
  createdAt: string;
  kind: string;
  description: string;
  refType: string;
  refId: number;
  availableDelta: number;
  blockedDelta: number;
  availableAfter: number;
  blockedAfter: number;
}

const DESCRIPTIONS: Record<string, string> = {
  'sale.paid': 'Venda paga (valor líquido)',
  'sale.refunded': 'Venda estornada',
  'sale.reserve_released': 'Reserva liberada',
  'sale.dispute_opened': 'Disputa aberta (valor bloqueado)',
  'sale.dispute_won': 'Disputa ganha (valor liberado)',
  'sale.dispute_lost': 'Disputa perdida',
  'withdrawal.create': 'Saque solicitado (valor bloqueado)',
  'withdrawal.complete': 'Saque concluído',
  'withdrawal.reject': 'Saque recusado (valor devolvido)',
  'withdrawal.cancel': 'Saque cancelado (valor devolvido)',
};

/** Where a page starts: the id below which its lines are, and the balances right after its first line. */
interface Position {
  before: number;
  available: number;
  blocked: number;
}

const NO_BOUND = Number.MAX_SAFE_INTEGER;

/**
 * Statement pages, newest first, each O(page size) however long the account's history: the first page
 * starts from the current balances (less whatever came after `to`), and each line's balances are the
 * previous line's less that line's change. The cursor carries where the next page starts, signed so that
 * running balances cannot be forged.
 */
export class Statement {
  constructor(private readonly key: Buffer) {}

  async page(
    db: Queryable,
    accountId: number,
    q: { limit: number; cursor?: string; from: string | null; to: string | null },
  ): Promise<{ data: StatementLine[]; nextCursor: string | null }> {
    const lower = q.from ? await firstEntryAtOrAfter(db, q.from) : 0;
    const start = q.cursor ? this.decode(q.cursor, accountId) : await startOf(db, accountId, q.to);
    const rows = await entries(db, accountId, start.before, lower, q.limit + 1);
    const lines = rows.slice(0, q.limit);
    let available = start.available;
    let blocked = start.blocked;
    const data = lines.map((r) => {
      const line: StatementLine = {
        id: r.id,
        createdAt: new Date(r.created_at).toISOString(),
        kind: r.kind,
        description: DESCRIPTIONS[r.kind] ?? r.kind,
        refType: r.ref_type,
        refId: r.ref_id,
        availableDelta: r.available_delta,
        blockedDelta: r.blocked_delta,
        availableAfter: available,
        blockedAfter: blocked,
      };
      available -= r.available_delta;
      blocked -= r.blocked_delta;
      return line;
    });
    const last = lines[lines.length - 1];
    const more = rows.length > q.limit && last;
    return {
      data,
      nextCursor: more ? this.encode({ before: last.id, available, blocked }, accountId) : null,
    };
  }

  /** Every line (newest first) for the CSV export, one page of 1,000 at a time. */
  async *all(db: Queryable, accountId: number, q: { from: string | null; to: string | null }) {
    let cursor: string | undefined;
    do {
      const page = await this.page(db, accountId, { ...q, limit: 1000, cursor });
      yield* page.data;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }

  private sign(text: string, accountId: number): string {
    return createHmac('sha256', this.key)
      .update(`statement:${accountId}:${text}`)
      .digest('base64url')
      .slice(0, 22);
  }

  private encode(p: Position, accountId: number): string {
    const text = `${p.before}.${p.available}.${p.blocked}`;
    return Buffer.from(`${text}.${this.sign(text, accountId)}`).toString('base64url');
  }

  private decode(cursor: string, accountId: number): Position {
    const raw = /^[A-Za-z0-9_-]{1,200}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
    const m = /^(\d{1,16})\.(-?\d{1,16})\.(-?\d{1,16})\.([A-Za-z0-9_-]{22})$/.exec(raw);
    if (!m || !constantTimeEqual(m[4]!, this.sign(`${m[1]}.${m[2]}.${m[3]}`, accountId))) {
      throw validation('cursor is not one this list gave');
    }
    return { before: Number(m[1]), available: Number(m[2]), blocked: Number(m[3]) };
  }
}

async function firstEntryAtOrAfter(db: Queryable, at: string): Promise<number> {
  const [row] = await db.query<{ id: number | null }>(
    'SELECT min(id) AS id FROM journal_entries WHERE created_at >= $1::timestamptz',
    [at],
  );
  return row?.id ?? NO_BOUND;
}

/** The first page's position: everything before `to`, with the balances right after the last such entry. */
async function startOf(db: Queryable, accountId: number, to: string | null): Promise<Position> {
  const balance = await getBalance(db, accountId);
  if (!to) return { before: NO_BOUND, available: balance.available, blocked: balance.blocked };
  const before = await firstEntryAtOrAfter(db, to);
  const [later] = await db.query<{ available: number; blocked: number }>(
    `SELECT COALESCE(sum(p.amount) FILTER (WHERE la.bucket = 'available'), 0)::bigint AS available,
            COALESCE(sum(p.amount) FILTER (WHERE la.bucket = 'blocked'), 0)::bigint AS blocked
       FROM ledger_accounts la JOIN postings p ON p.ledger_account_id = la.id
      WHERE la.account_id = $1 AND p.entry_id >= $2`,
    [accountId, before],
  );
  return {
    before,
    available: balance.available - (later?.available ?? 0),
    blocked: balance.blocked - (later?.blocked ?? 0),
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
}

/** Up to `limit` entries touching the account's buckets with lower <= id < before, newest first. */
function entries(
  db: Queryable,
  accountId: number,
  before: number,
  lower: number,
  limit: number,
): Promise<EntryRow[]> {
  return db.query<EntryRow>(
    `WITH la AS (SELECT id, bucket FROM ledger_accounts WHERE account_id = $1),
     ids AS (
       SELECT DISTINCT entry_id FROM (
         (SELECT entry_id FROM postings
           WHERE ledger_account_id = (SELECT id FROM la WHERE bucket = 'available')
             AND entry_id < $2 AND entry_id >= $3 ORDER BY entry_id DESC LIMIT $4)
         UNION ALL
         (SELECT entry_id FROM postings
           WHERE ledger_account_id = (SELECT id FROM la WHERE bucket = 'blocked')
             AND entry_id < $2 AND entry_id >= $3 ORDER BY entry_id DESC LIMIT $4)) u
       ORDER BY entry_id DESC LIMIT $4)
     SELECT e.id, e.created_at, e.kind, e.ref_type, e.ref_id,
            COALESCE(sum(p.amount) FILTER (WHERE la.bucket = 'available'), 0)::bigint AS available_delta,
            COALESCE(sum(p.amount) FILTER (WHERE la.bucket = 'blocked'), 0)::bigint AS blocked_delta
       FROM ids JOIN journal_entries e ON e.id = ids.entry_id
       JOIN postings p ON p.entry_id = e.id JOIN la ON la.id = p.ledger_account_id
      GROUP BY e.id ORDER BY e.id DESC`,
    [accountId, before, lower, limit],
  );
}
