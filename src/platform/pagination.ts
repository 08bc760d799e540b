import { validation } from './errors.js';

/** The filters every panel list shares (decisions.md: limit 1..100, default 20; a bad one → 400). */
export interface Page {
  limit: number;
  /** Rows strictly older than this id (the previous page's last row), or null for the first page. */
  before: number | null;
  from: string | null;
  to: string | null;
}

export interface PageQuery {
  limit?: string;
  cursor?: string;
  from?: string;
  to?: string;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

export function parsePage(q: PageQuery): Page {
  let limit = 20;
  if (q.limit !== undefined) {
    if (!/^\d{1,3}$/.test(q.limit) || Number(q.limit) < 1 || Number(q.limit) > 100) {
      throw validation('limit must be a whole number from 1 to 100');
    }
    limit = Number(q.limit);
  }
  return {
    limit,
    before: q.cursor === undefined ? null : decodeCursor(q.cursor),
    from: date(q, 'from'),
    to: date(q, 'to'),
  };
}

function date(q: PageQuery, name: 'from' | 'to'): string | null {
  const raw = q[name];
  if (raw === undefined || raw === '') return null;
  if (!ISO_DATE.test(raw) || Number.isNaN(Date.parse(raw))) {
    throw validation(
      `${name} must be an ISO 8601 date or date-time (e.g. 2026-01-31 or 2026-01-31T12:00:00-03:00)`,
    );
  }
  // a bare date is the start of that day in São Paulo, where the merchants are
  return new Date(/T/.test(raw) ? raw : `${raw}T00:00:00-03:00`).toISOString();
}

/** Cursors are opaque to clients: the base64url of the last row's id. */
export function encodeCursor(id: number): string {
  return Buffer.from(`c${id}`).toString('base64url');
}

function decodeCursor(raw: string): number {
  const text = /^[A-Za-z0-9_-]{1,40}$/.test(raw) ? Buffer.from(raw, 'base64url').toString() : '';
  const m = /^c([1-9]\d{0,15})$/.exec(text);
  if (!m || !Number.isSafeInteger(Number(m[1]))) throw validation('cursor is not one this list gave');
  return Number(m[1]);
}

/** The rows of a page fetched with limit + 1, and the cursor of the next page (null on the last). */
export function pageOf<T extends { id: number }>(
  rows: T[],
  limit: number,
): { rows: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { rows, nextCursor: null };
  const kept = rows.slice(0, limit);
  return { rows: kept, nextCursor: encodeCursor(kept[kept.length - 1]!.id) };
}
