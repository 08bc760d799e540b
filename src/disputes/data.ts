import type { Queryable } from '../platform/db/db.js';
import { rowOrNull } from '../platform/sql/row-or-null.js';
import type { DisputedSale } from '../sales/index.js';

export type DisputeKind = 'chargeback' | 'med';
export type DisputeStatus = 'needs_response' | 'under_review' | 'won' | 'lost' | 'accepted';

/** A row of `disputes`. */
export interface DisputeRow {
  id: number;
  uuid: string;
  account_id: number;
  sale_id: number;
  sale_uuid: string;
  kind: DisputeKind;
  status: DisputeStatus;
  amount_cents: number;
  adjustment_cents: number;
  /** Of the adjustment, the fee on a part disputed (0 for a dispute of all that is left). */
  fee_part_cents: number;
  /**
   * Who holds the amount beyond the net (the fee), party by party, as the opening shared it among the liable
   * parties; null for a dispute opened before migration 283, whose fee the account held alone.
   */
  fee_parts: DisputedSale['heldParts'] | null;
  reason: string | null;
  source: string;
  external_id: string | null;
  response_text: string | null;
  respond_by: Date;
  reminded_at: Date | null;
  created_at: Date;
  closed_at: Date | null;
  /** Given back by MED devoluções (natureza MED_*) of its sale (migration 287): a MED's end. */
  med_devolution_cents: number;
  /** What it took when closed lost or accepted (migration 289); null while open, when won, or closed before. */
  lost_cents: number | null;
}

/** What of a dispute's evidence file its views show (never the content). */
export interface EvidenceRow {
  id: number;
  uuid: string;
  dispute_id: number;
  name: string;
  content_type: string;
  size: number;
}

export interface NewDispute {
  accountId: number;
  saleId: number;
  saleUuid: string;
  kind: DisputeKind;
  amountCents: number;
  adjustmentCents: number;
  feePartCents: number;
  feeParts: DisputedSale['heldParts'];
  reason: string | null;
  source: string;
  externalId: string | null;
  respondByDays: number;
}

export async function insertDispute(tx: Queryable, d: NewDispute): Promise<DisputeRow> {
  const [row] = await tx.query<DisputeRow>(
    `INSERT INTO disputes (account_id, sale_id, sale_uuid, kind, amount_cents, adjustment_cents, reason, source,
        external_id, respond_by, fee_part_cents, fee_parts)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9,
        date_trunc('milliseconds', now()) + make_interval(days => $10), $11, $12::jsonb)
     RETURNING *`,
    [
      d.accountId,
      d.saleId,
      d.saleUuid,
      d.kind,
      d.amountCents,
      d.adjustmentCents,
      d.reason,
      d.source,
      d.externalId,
      d.respondByDays,
      d.feePartCents,
      JSON.stringify(d.feeParts),
    ],
  );
  return row!;
}

/** A dispute by its uuid, locked for the caller's transaction. */
export async function lockDispute(tx: Queryable, uuid: string): Promise<DisputeRow | null> {
  return rowOrNull<DisputeRow>(tx, 'SELECT * FROM disputes WHERE uuid = $1 FOR UPDATE', [uuid]);
}

export async function findDispute(q: Queryable, uuid: string): Promise<DisputeRow | null> {
  return rowOrNull<DisputeRow>(q, 'SELECT * FROM disputes WHERE uuid = $1', [uuid]);
}

export async function findDisputeById(q: Queryable, id: number): Promise<DisputeRow | null> {
  return rowOrNull<DisputeRow>(q, 'SELECT * FROM disputes WHERE id = $1', [id]);
}

export async function findDisputeByExternalId(
  q: Queryable,
  source: string,
  externalId: string,
): Promise<DisputeRow | null> {
  return rowOrNull<DisputeRow>(q, 'SELECT * FROM disputes WHERE source = $1 AND external_id = $2', [
    source,
    externalId,
  ]);
}

export async function closeDispute(
  tx: Queryable,
  id: number,
  status: 'won' | 'lost' | 'accepted',
  /** What a loss took (0 when the sale's refunds had taken it all); null when won. */
  lostCents: number | null,
): Promise<DisputeRow> {
  const [row] = await tx.query<DisputeRow>(
    `UPDATE disputes SET status = $2, lost_cents = $3, closed_at = date_trunc('milliseconds', now())
      WHERE id = $1 RETURNING *`,
    [id, status, lostCents],
  );
  return row!;
}

export async function markUnderReview(tx: Queryable, id: number, text: string | null): Promise<DisputeRow> {
  const [row] = await tx.query<DisputeRow>(
    `UPDATE disputes SET status = 'under_review', response_text = $2 WHERE id = $1 RETURNING *`,
    [id, text],
  );
  return row!;
}

/** One evidence file, its bytes sent as a binary parameter (not as text twice their size). */
export async function insertEvidenceFile(
  tx: Queryable,
  disputeId: number,
  file: { name: string; contentType: string; content: Buffer },
): Promise<void> {
  await tx.query(
    `INSERT INTO dispute_evidence (dispute_id, name, content_type, size, content)
     VALUES ($1, $2, $3, $4, $5::bytea)`,
    [disputeId, file.name, file.contentType, file.content.length, file.content],
  );
}

export async function evidenceOf(q: Queryable, disputeIds: number[]): Promise<EvidenceRow[]> {
  if (disputeIds.length === 0) return [];
  return q.query<EvidenceRow>(
    `SELECT id, uuid, dispute_id, name, content_type, size FROM dispute_evidence
      WHERE dispute_id = ANY($1::bigint[]) ORDER BY id`,
    [disputeIds],
  );
}

/** A page of an account's disputes, newest first, strictly older than `before` (an id) when given. */
export async function listDisputes(
  q: Queryable,
  accountId: number,
  filter: { status: DisputeStatus | null; saleUuid: string | null; before: number | null; limit: number },
): Promise<DisputeRow[]> {
  return q.query<DisputeRow>(
    `SELECT * FROM disputes
      WHERE account_id = $1 AND ($2::text IS NULL OR status = $2) AND ($3::bigint IS NULL OR id < $3)
        AND ($5::uuid IS NULL OR sale_uuid = $5)
      ORDER BY id DESC LIMIT $4`,
    [accountId, filter.status, filter.before, filter.limit, filter.saleUuid],
  );
}

/** Disputes past their respondBy with no answer, locked and skipped by a concurrent run. */
export async function lockOverdue(tx: Queryable, limit: number): Promise<DisputeRow[]> {
  return tx.query<DisputeRow>(
    `SELECT * FROM disputes WHERE status = 'needs_response' AND respond_by <= now()
      ORDER BY respond_by LIMIT $1 FOR UPDATE SKIP LOCKED`,
    [limit],
  );
}

/** Disputes awaiting an answer whose respondBy is within `days`, not yet reminded. */
export async function lockDueForReminder(tx: Queryable, days: number, limit: number): Promise<DisputeRow[]> {
  return tx.query<DisputeRow>(
    `SELECT * FROM disputes
      WHERE status = 'needs_response' AND reminded_at IS NULL
        AND respond_by <= now() + make_interval(days => $1) AND respond_by > now()
      ORDER BY respond_by LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [days, limit],
  );
}

export async function markReminded(tx: Queryable, ids: number[]): Promise<void> {
  await tx.query('UPDATE disputes SET reminded_at = now() WHERE id = ANY($1::bigint[])', [ids]);
}

/** Every account's disputes (or one's), those still open first by their deadline, then the newest closed. */
export async function disputesByDeadline(
  q: Queryable,
  filter: { accountId: number | null; openOnly: boolean; limit: number },
): Promise<DisputeRow[]> {
  return q.query<DisputeRow>(
    `SELECT * FROM disputes
      WHERE ($1::bigint IS NULL OR account_id = $1) AND (NOT $2 OR status IN ('needs_response', 'under_review'))
      ORDER BY (status IN ('needs_response', 'under_review')) DESC, respond_by, id DESC LIMIT $3`,
    [filter.accountId, filter.openOnly, filter.limit],
  );
}
