import type { Queryable } from '../platform/db/db.js';
import { isUuid } from '../platform/ids/public-ids.js';
import { type Page, periodConditions } from '../platform/paging/pagination.js';

export interface SaleFilters extends Page {
  status: string | null;
  paymentMethod: string | null;
  q: string | null;
  /** The sales made through this payment link (its uuid). */
  paymentLinkId?: string | null;
  /** A subscription's sales (its uuid). */
  subscriptionId?: string | null;
  /** The sales whose split includes this recipient (its internal id). */
  splitRecipient?: number | null;
}

/**
 * The WHERE clause of one account's sales under the panel's filters. `q` is matched the way a merchant
 * types it: a uuid, a numeric id or document, an email, or part of the customer's name, accents and case aside (trigram index).
 */
function conditions(accountId: number, f: SaleFilters): { sql: string; params: unknown[] } {
  const params: unknown[] = [accountId];
  const add = (value: unknown) => `$${params.push(value)}`;
  const where = ['account_id = $1'];
  if (f.status) where.push(`status = ${add(f.status)}`);
  if (f.paymentMethod) where.push(`payment_method = ${add(f.paymentMethod)}`);
  if (f.paymentLinkId) where.push(`payment_link_id = ${add(f.paymentLinkId)}::uuid`);
  if (f.subscriptionId) where.push(`subscription_id = ${add(f.subscriptionId)}::uuid`);
  if (f.splitRecipient) where.push(`split_recipients @> ARRAY[${add(f.splitRecipient)}::bigint]`);
  where.push(...periodConditions('sales', '$1', f, add));
  if (f.before !== null) where.push(`id < ${add(f.before)}`);
  const q = f.q?.trim();
  if (q) {
    const digits = q.replace(/[.\-/\s]/g, '');
    if (isUuid(q)) where.push(`uuid = ${add(q.toLowerCase())}::uuid`);
    else if (/^\d{1,15}$/.test(q))
      where.push(`(id = ${add(Number(q))} OR customer ->> 'document' = ${add(q)})`);
    else if (/^\d{11,14}$/.test(digits)) where.push(`customer ->> 'document' = ${add(digits)}`);
    else if (q.includes('@')) where.push(`lower(customer ->> 'email') = ${add(q.toLowerCase())}`);
    else {
      // accents and case folded on both sides by the same function (migration 131), for its trigram index
      const like = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      where.push(`search_fold(customer ->> 'name') LIKE search_fold(${add(like)})`);
    }
  }
  return { sql: where.join(' AND '), params };
}

/** One page of sales, newest first: their Sale objects as JSON text (sales.public_json). */
export async function listSales(db: Queryable, accountId: number, f: SaleFilters) {
  const { sql, params } = conditions(accountId, f);
  return db.query<{ id: number; body: string }>(
    `SELECT id, public_json AS body FROM sales WHERE ${sql} ORDER BY id DESC LIMIT ${f.limit + 1}`,
    params,
  );
}

export interface SaleCsvRow {
  id: number;
  uuid: string;
  created_at: Date;
  status: string;
  payment_method: string;
  amount: number;
  system_fee: number;
  net_amount: number;
  refunded_amount: number;
  customer_name: string | null;
  customer_email: string | null;
  customer_document: string | null;
}

/** Every matching sale, newest first, read in chunks by id (constant memory, whatever the count). */
export async function* allSales(
  db: Queryable,
  accountId: number,
  f: SaleFilters,
): AsyncGenerator<SaleCsvRow> {
  let before = f.before;
  for (;;) {
    const { sql, params } = conditions(accountId, { ...f, before });
    const rows = await db.query<SaleCsvRow>(
      `SELECT id, uuid, created_at, status, payment_method, amount, system_fee, net_amount, refunded_amount,
              customer ->> 'name' AS customer_name, customer ->> 'email' AS customer_email,
              customer ->> 'document' AS customer_document
         FROM sales WHERE ${sql} ORDER BY id DESC LIMIT 1000`,
      params,
    );
    yield* rows;
    if (rows.length < 1000) return;
    before = rows[rows.length - 1]!.id;
  }
}
