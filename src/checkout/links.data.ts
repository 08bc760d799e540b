import { accountColumnSql } from '../accounts/index.js';
import type { Queryable } from '../platform/db/db.js';
import { rowOrNull } from '../platform/sql/row-or-null.js';

/** The payment methods a link or session may offer. */
export const CHECKOUT_METHODS = ['PIX', 'BOLETO', 'CREDIT_CARD'] as const;
export type CheckoutMethod = (typeof CHECKOUT_METHODS)[number];

/** A row of `payment_links`. */
export interface LinkRow {
  id: string;
  seq: number;
  account_id: number;
  slug: string;
  title: string;
  description: string | null;
  amount_cents: number | null;
  min_cents: number | null;
  max_cents: number | null;
  methods: CheckoutMethod[];
  max_installments: number | null;
  expires_at: Date | null;
  max_uses: number | null;
  success_url: string | null;
  metadata: Record<string, string>;
  /** The split every sale of the link carries (as given, checked at creation); null: none. */
  split: unknown[] | null;
  active: boolean;
  created_at: Date;
}

export type NewLinkRow = Omit<LinkRow, 'seq' | 'active' | 'created_at'>;

export async function insertLink(q: Queryable, l: NewLinkRow): Promise<LinkRow> {
  const [row] = await q.query<LinkRow>(
    `INSERT INTO payment_links (id, account_id, slug, title, description, amount_cents, min_cents, max_cents,
        methods, max_installments, expires_at, max_uses, success_url, metadata, split)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
     RETURNING *`,
    [
      l.id,
      l.account_id,
      l.slug,
      l.title,
      l.description,
      l.amount_cents,
      l.min_cents,
      l.max_cents,
      l.methods,
      l.max_installments,
      l.expires_at?.toISOString() ?? null,
      l.max_uses,
      l.success_url,
      JSON.stringify(l.metadata),
      l.split ? JSON.stringify(l.split) : null,
    ],
  );
  return row!;
}

export async function findLink(q: Queryable, accountId: number, id: string): Promise<LinkRow | null> {
  return rowOrNull<LinkRow>(q, 'SELECT * FROM payment_links WHERE id = $1 AND account_id = $2', [
    id,
    accountId,
  ]);
}

/** A link by its slug, with its merchant's name (what the payer's page shows) read in the same round trip. */
export async function findLinkBySlug(
  q: Queryable,
  slug: string,
): Promise<(LinkRow & { merchant_name: string | null }) | null> {
  return rowOrNull<LinkRow & { merchant_name: string | null }>(
    q,
    `SELECT l.*, ${accountColumnSql('name', 'l.account_id')} AS merchant_name FROM payment_links l WHERE slug = $1`,
    [slug],
  );
}

/** Up to `limit` of the account's links, newest first, older than the link numbered `beforeSeq` when given. */
export async function listLinks(
  q: Queryable,
  accountId: number,
  limit: number,
  beforeSeq: number | null,
): Promise<LinkRow[]> {
  return q.query<LinkRow>(
    `SELECT * FROM payment_links WHERE account_id = $1 AND ($2::bigint IS NULL OR seq < $2)
      ORDER BY seq DESC LIMIT $3`,
    [accountId, beforeSeq, limit],
  );
}

export async function setLinkActive(
  q: Queryable,
  accountId: number,
  id: string,
  active: boolean,
): Promise<LinkRow | null> {
  return rowOrNull<LinkRow>(
    q,
    `UPDATE payment_links SET active = $3, updated_at = now() WHERE id = $1 AND account_id = $2 RETURNING *`,
    [id, accountId, active],
  );
}
