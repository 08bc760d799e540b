import type { Queryable } from '../platform/db/db.js';
import { rowOrNull } from '../platform/sql/row-or-null.js';

export interface CustomerRow {
  id: number;
  uuid: string;
  account_id: number;
  name: string;
  email: string;
  document: string;
  phone: string;
  created_at: Date;
}

export async function insertCustomer(
  q: Queryable,
  c: { uuid: string; accountId: number; name: string; email: string; document: string; phone: string },
): Promise<CustomerRow> {
  const [row] = await q.query<CustomerRow>(
    `INSERT INTO customers (uuid, account_id, name, email, document, phone) VALUES ($1, $2, $3, $4, $5, $6)
     RETURNING *`,
    [c.uuid, c.accountId, c.name, c.email, c.document, c.phone],
  );
  return row!;
}

/** The account's customer of this uuid; null when it has none (another account's too). */
export async function findCustomer(
  q: Queryable,
  accountId: number,
  uuid: string,
): Promise<CustomerRow | null> {
  return rowOrNull<CustomerRow>(q, 'SELECT * FROM customers WHERE uuid = $1 AND account_id = $2', [
    uuid,
    accountId,
  ]);
}

/** Newest first, `limit + 1` rows older than id `before`. */
export function listCustomers(
  q: Queryable,
  accountId: number,
  before: number | null,
  limit: number,
): Promise<CustomerRow[]> {
  return q.query<CustomerRow>(
    `SELECT * FROM customers WHERE account_id = $1 AND ($2::bigint IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
    [accountId, before, limit + 1],
  );
}

/** These customers by internal id, in one query. */
export async function customersById(q: Queryable, ids: number[]): Promise<Map<number, CustomerRow>> {
  const rows = await q.query<CustomerRow>('SELECT * FROM customers WHERE id = ANY($1::bigint[])', [ids]);
  return new Map(rows.map((r) => [Number(r.id), r]));
}
