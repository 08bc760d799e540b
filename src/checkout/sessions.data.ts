import { accountColumnSql } from '../accounts/index.js';
import type { Queryable } from '../platform/db/db.js';
import { rowOrNull } from '../platform/sql/row-or-null.js';
import type { CheckoutMethod } from './links.data.js';
import type { PayerInput } from './payer.js';

/** A session's item, as the sale will carry it. */
export interface SessionItem {
  title: string;
  unitPrice: number;
  quantity: number;
  tangible: boolean;
}

/** A row of `checkout_sessions`. */
export interface SessionRow {
  id: string;
  account_id: number;
  amount_cents: number;
  items: SessionItem[];
  customer: PayerInput | null;
  methods: CheckoutMethod[];
  success_url: string;
  cancel_url: string | null;
  metadata: Record<string, string>;
  /** The split the session's sale carries (as given, checked at creation); null: none. */
  split: unknown[] | null;
  expires_at: Date;
  created_at: Date;
}

export async function insertSession(
  q: Queryable,
  s: Omit<SessionRow, 'expires_at' | 'created_at'>,
  expiresIn: number,
): Promise<SessionRow> {
  const [row] = await q.query<SessionRow>(
    `INSERT INTO checkout_sessions (id, account_id, amount_cents, items, customer, methods, success_url,
        cancel_url, metadata, split, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $11, date_trunc('milliseconds', now()) + make_interval(secs => $10))
     RETURNING *`,
    [
      s.id,
      s.account_id,
      s.amount_cents,
      JSON.stringify(s.items),
      s.customer ? JSON.stringify(s.customer) : null,
      s.methods,
      s.success_url,
      s.cancel_url,
      JSON.stringify(s.metadata),
      expiresIn,
      s.split ? JSON.stringify(s.split) : null,
    ],
  );
  return row!;
}

/**
 * A session by id, the account's only when `accountId` is given; with the database's clock's verdict on it and
 * its merchant's name (what the payer's page shows), in one round trip.
 */
export async function findSession(
  q: Queryable,
  id: string,
  accountId: number | null,
): Promise<(SessionRow & { expired: boolean; merchant_name: string | null }) | null> {
  return rowOrNull<SessionRow & { expired: boolean; merchant_name: string | null }>(
    q,
    `SELECT s.*, expires_at <= now() AS expired, ${accountColumnSql('name', 's.account_id')} AS merchant_name
       FROM checkout_sessions s
      WHERE id = $1 AND ($2::bigint IS NULL OR account_id = $2)`,
    [id, accountId],
  );
}
