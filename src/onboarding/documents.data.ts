import type { Queryable } from '../platform/db/db.js';
import type { DocumentType } from '../platform/files/sniff.js';

export const DOCUMENT_KINDS = [
  'id_front',
  'id_back',
  'selfie',
  'company_contract',
  'proof_of_address',
] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

export function isDocumentKind(value: unknown): value is DocumentKind {
  return typeof value === 'string' && (DOCUMENT_KINDS as readonly string[]).includes(value);
}

export interface DocumentMeta {
  id: number;
  kind: DocumentKind;
  contentType: DocumentType;
  sizeBytes: number;
  uploadedAt: string;
}

export async function insertDocument(
  q: Queryable,
  accountId: number,
  kind: DocumentKind,
  contentType: DocumentType,
  content: Buffer,
): Promise<DocumentMeta> {
  const [row] = await q.query<{ id: string; uploaded_at: Date }>(
    `INSERT INTO onboarding_documents (account_id, kind, content_type, size_bytes, content)
     VALUES ($1, $2, $3, $4, $5) RETURNING id, uploaded_at`,
    [accountId, kind, contentType, content.length, content],
  );
  return {
    id: Number(row!.id),
    kind,
    contentType,
    sizeBytes: content.length,
    uploadedAt: row!.uploaded_at.toISOString(),
  };
}

/** The newest document of each kind the account sent (a new upload of a kind replaces the older one). */
export async function currentDocuments(q: Queryable, accountId: number): Promise<DocumentMeta[]> {
  const rows = await q.query<{
    id: string;
    kind: DocumentKind;
    content_type: DocumentType;
    size_bytes: number;
    uploaded_at: Date;
  }>(
    `SELECT DISTINCT ON (kind) id, kind, content_type, size_bytes, uploaded_at
       FROM onboarding_documents WHERE account_id = $1 ORDER BY kind, id DESC`,
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

/** One document's bytes, of that account only. */
export async function documentContent(
  q: Queryable,
  accountId: number,
  id: number,
): Promise<{ contentType: DocumentType; content: Buffer; kind: DocumentKind } | null> {
  const [row] = await q.query<{ content_type: DocumentType; content: Buffer; kind: DocumentKind }>(
    'SELECT content_type, content, kind FROM onboarding_documents WHERE id = $1 AND account_id = $2',
    [id, accountId],
  );
  return row ? { contentType: row.content_type, content: row.content, kind: row.kind } : null;
}
