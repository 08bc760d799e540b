import type { Queryable } from '../platform/db/db.js';
import { AppError, notFound } from '../platform/errors/app-error.js';
import { rowOrNull } from '../platform/sql/row-or-null.js';

/**
 * The console's review queue (its routes: src/console/queues.routes.ts): an account waiting for its
 * onboarding decision, and risk reviews. Each is decided once: approved or rejected, by whom and why.
 */
export type ReviewKind = 'onboarding' | 'risk';
export type ReviewStatus = 'open' | 'approved' | 'rejected';

export interface ReviewRow {
  id: number;
  kind: ReviewKind;
  account_id: number;
  sale_id: number | null;
  reason: string;
  status: ReviewStatus;
  created_at: Date;
  decided_at: Date | null;
  decided_by: string | null;
  decision_reason: string | null;
}

export interface ReviewView {
  id: number;
  kind: ReviewKind;
  accountId: number;
  saleId: number | null;
  reason: string;
  status: ReviewStatus;
  createdAt: string;
  decidedAt: string | null;
  decidedBy: string | null;
  decisionReason: string | null;
}

export const reviewView = (r: ReviewRow): ReviewView => ({
  id: Number(r.id),
  kind: r.kind,
  accountId: Number(r.account_id),
  saleId: r.sale_id === null ? null : Number(r.sale_id),
  reason: r.reason,
  status: r.status,
  createdAt: r.created_at.toISOString(),
  decidedAt: r.decided_at ? r.decided_at.toISOString() : null,
  decidedBy: r.decided_by,
  decisionReason: r.decision_reason,
});

/** Opens a review in the caller's transaction; an account has at most one open onboarding review. */
export async function openReview(
  tx: Queryable,
  review: { kind: ReviewKind; accountId: number; saleId?: number | null; reason: string },
): Promise<void> {
  await tx.query(
    `INSERT INTO reviews (kind, account_id, sale_id, reason) VALUES ($1, $2, $3, $4)
     ON CONFLICT (account_id) WHERE status = 'open' AND kind = 'onboarding' DO NOTHING`,
    [review.kind, review.accountId, review.saleId ?? null, review.reason],
  );
}

/** Open reviews, oldest first (the longest waiting first), `limit + 1` rows after id `after`. */
export function openReviews(
  q: Queryable,
  f: { kind: ReviewKind | null; after: number | null; limit: number },
): Promise<ReviewRow[]> {
  return q.query<ReviewRow>(
    `SELECT * FROM reviews WHERE status = 'open' AND ($1::text IS NULL OR kind = $1)
        AND ($2::bigint IS NULL OR id > $2)
      ORDER BY id LIMIT $3`,
    [f.kind, f.after, f.limit + 1],
  );
}

export async function accountReviews(q: Queryable, accountId: number): Promise<ReviewRow[]> {
  return q.query<ReviewRow>('SELECT * FROM reviews WHERE account_id = $1 ORDER BY id DESC LIMIT 50', [
    accountId,
  ]);
}

export async function findReview(q: Queryable, id: number): Promise<ReviewRow | null> {
  return rowOrNull<ReviewRow>(q, 'SELECT * FROM reviews WHERE id = $1', [id]);
}

/** The review, locked for its decision (unknown → 404; decided already → 409 INVALID_STATUS). */
export async function lockOpenReview(tx: Queryable, id: number): Promise<ReviewRow> {
  const [row] = await tx.query<ReviewRow>('SELECT * FROM reviews WHERE id = $1 FOR UPDATE', [id]);
  if (!row) throw notFound('Review not found');
  if (row.status !== 'open') throw new AppError('INVALID_STATUS', `Review ${id} was already ${row.status}`);
  return row;
}

/** Decides a review (locked by lockOpenReview) in the caller's transaction. */
export async function closeReview(
  tx: Queryable,
  id: number,
  decision: 'approved' | 'rejected',
  by: string,
  reason: string | null,
): Promise<ReviewRow> {
  const [row] = await tx.query<ReviewRow>(
    `UPDATE reviews SET status = $2, decided_at = now(), decided_by = $3, decision_reason = $4
      WHERE id = $1 RETURNING *`,
    [id, decision, by, reason],
  );
  return row!;
}

/** The open onboarding review of an account, if any (approved or rejected with the account itself). */
export async function openOnboardingReviewOf(q: Queryable, accountId: number): Promise<number | null> {
  const [row] = await q.query<{ id: string }>(
    `SELECT id FROM reviews WHERE account_id = $1 AND kind = 'onboarding' AND status = 'open'`,
    [accountId],
  );
  return row ? Number(row.id) : null;
}

/** The open risk review of an account's own (its card refusals' pause, not a sale's), if any. */
export async function openAccountRiskReviewOf(q: Queryable, accountId: number): Promise<number | null> {
  const [row] = await q.query<{ id: string }>(
    `SELECT id FROM reviews WHERE account_id = $1 AND kind = 'risk' AND sale_id IS NULL AND status = 'open'
      ORDER BY id LIMIT 1`,
    [accountId],
  );
  return row ? Number(row.id) : null;
}

/** The open risk review of a sale (a card authorization held for it), if any. */
export async function openReviewOfSale(q: Queryable, saleId: number): Promise<number | null> {
  const [row] = await q.query<{ id: string }>(
    `SELECT id FROM reviews WHERE sale_id = $1 AND kind = 'risk' AND status = 'open'`,
    [saleId],
  );
  return row ? Number(row.id) : null;
}
