import { createHash } from 'node:crypto';
import { lockForTransaction } from '../platform/db/advisory-lock.js';
import type { Queryable } from '../platform/db/db.js';
import type { DocumentType } from '../platform/files/sniff.js';
import { oneOf } from '../platform/literals/one-of.js';

export const DOCUMENT_KINDS = [
  'id_front',
  'id_back',
  'selfie',
  'company_contract',
  'proof_of_address',
] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

export const isDocumentKind = oneOf(DOCUMENT_KINDS);

export interface DocumentMeta {
  id: number;
  kind: DocumentKind;
  contentType: DocumentType;
  sizeBytes: number;
  uploadedAt: string;
}

/**
 * Stores a document as the account's current one of its kind: the previous one of that kind (if any) is
 * replaced, kept only as its SHA-256 and metadata (its bytes dropped). Run in the transaction that checked
 * the account's bounds under lockDocuments.
 */
export async function replaceDocument(
  q: Queryable,
  accountId: number,
  kind: DocumentKind,
  contentType: DocumentType,
  content: Buffer,
): Promise<DocumentMeta> {
  await q.query(
    `UPDATE onboarding_documents SET content = NULL, replaced_at = now()
      WHERE account_id = $1 AND kind = $2 AND replaced_at IS NULL`,
    [accountId, kind],
  );
  const sha256 = createHash('sha256').update(content).digest();
  const [row] = await q.query<{ id: string; uploaded_at: Date }>(
    `INSERT INTO onboarding_documents (account_id, kind, content_type, size_bytes, content, sha256)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING id, uploaded_at`,
    [accountId, kind, contentType, content.length, content, sha256],
  );
  return {
    id: Number(row!.id),
    kind,
    contentType,
    sizeBytes: content.length,
    uploadedAt: row!.uploaded_at.toISOString(),
  };
}

/** Serialises the account's document uploads until the transaction ends (their bounds are counted under it). */
export async function lockDocuments(q: Queryable, accountId: number): Promise<void> {
  await lockForTransaction(q, 'onboarding-documents', accountId);
}

/**
 * What the account's documents weigh: uploads since `hours` ago (and in how many seconds the oldest of them
 * leaves that window), and the bytes of the current ones but `kind`.
 */
export async function documentUsage(
  q: Queryable,
  accountId: number,
  hours: number,
  kind: DocumentKind | null,
): Promise<{ recentUploads: number; windowFreesInSeconds: number; otherKindsBytes: number }> {
  const [row] = await q.query<{ recent: number; frees: number | null; bytes: string }>(
    `SELECT count(*) FILTER (WHERE uploaded_at > now() - make_interval(hours => $2))::int AS recent,
            ceil(extract(epoch FROM min(uploaded_at) FILTER (WHERE uploaded_at > now() - make_interval(hours => $2))
                 + make_interval(hours => $2) - now()))::int AS frees,
            coalesce(sum(size_bytes) FILTER (WHERE replaced_at IS NULL AND kind IS DISTINCT FROM $3), 0) AS bytes
       FROM onboarding_documents WHERE account_id = $1`,
    [accountId, hours, kind],
  );
  return {
    recentUploads: row!.recent,
    windowFreesInSeconds: Math.max(1, row!.frees ?? 1),
    otherKindsBytes: Number(row!.bytes),
  };
}

/** The current document of each kind the account sent (a new upload of a kind replaces the older one). */
export async function currentDocuments(q: Queryable, accountId: number): Promise<DocumentMeta[]> {
  const rows = await q.query<{
    id: string;
    kind: DocumentKind;
    content_type: DocumentType;
    size_bytes: number;
    uploaded_at: Date;
  }>(
    `SELECT DISTINCT ON (kind) id, kind, content_type, size_bytes, uploaded_at
       FROM onboarding_documents WHERE account_id = $1 AND replaced_at IS NULL ORDER BY kind, id DESC`,
    [accountId],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    kind: r.kind,
    contentType: r.content_type,
    sizeBytes: r.size_bytes,
    uploadedAt: r.uploaded_at.toISOString(),
  }));
}

/** One current document's bytes, of that account only (a replaced one keeps none). */
export async function documentContent(
  q: Queryable,
  accountId: number,
  id: number,
): Promise<{ contentType: DocumentType; content: Buffer; kind: DocumentKind } | null> {
  const [row] = await q.query<{ content_type: DocumentType; content: Buffer; kind: DocumentKind }>(
    `SELECT content_type, content, kind FROM onboarding_documents
      WHERE id = $1 AND account_id = $2 AND content IS NOT NULL`,
    [id, accountId],
  );
  return row ? { contentType: row.content_type, content: row.content, kind: row.kind } : null;
}
