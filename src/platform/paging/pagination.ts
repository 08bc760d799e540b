import { validation } from '../errors/app-error.js';
import { isRealCalendarTime } from '../time/calendar.js';
import { fromSaoPaulo } from '../time/sao-paulo.js';

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

/** A list's `limit`: 1..100, default 20; anything else → 400. */
export function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return 20;
  if (!/^\d{1,3}$/.test(raw) || Number(raw) < 1 || Number(raw) > 100) {
    throw validation('limit must be a whole number from 1 to 100');
  }
  return Number(raw);
}

export function parsePage(q: PageQuery): Page {
  const limit = parseLimit(q.limit);
  const from = dateBound(q.from, 'from', 'start');
  const to = dateBound(q.to, 'to', 'end');
  const bareDays = !/T/.test(q.from ?? '') && !/T/.test(q.to ?? '');
  if (from !== null && to !== null && (from > to || (bareDays && q.from! > q.to!))) {
    throw validation('from must not be after to');
  }
  return { limit, before: q.cursor === undefined ? null : decodeCursor(q.cursor), from, to };
}

/**
 * A filter's date or date-time as an ISO instant (null when absent); a bare date is a whole São Paulo day:
 * its start as a `start` bound, the next day's start (excluded) as an `end` bound. A bad one → 400 naming it.
 */
export function dateBound(raw: string | undefined, name: string, side: 'start' | 'end'): string | null {
  if (raw === undefined || raw === '') return null;
  if (!ISO_DATE.test(raw) || !isRealCalendarTime(raw)) {
    throw validation(
      `${name} must be an ISO 8601 date or date-time that exists, years 1900 to 9998 (e.g. 2026-01-31 or 2026-01-31T12:00:00-03:00)`,
    );
  }
  // a date-time with its offset is taken as written; one without is São Paulo wall-clock time, like a bare date
  // (not the server's own zone)
  if (/T/.test(raw))
    return (/(Z|[+-]\d{2}:?\d{2})$/.test(raw) ? new Date(raw) : fromSaoPaulo(raw)).toISOString();
  // a bare date is a whole day in São Paulo, where the merchants are: `from` its start, `to` its end (the
  // next day's start, excluded), so from=to=2026-11-23 is that day
  const day =
    side === 'end' ? new Date(Date.parse(`${raw}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10) : raw;
  // (the year is at most 9998: the next day still has a four-digit year)
  return fromSaoPaulo(`${day}T00:00:00`).toISOString();
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A period of an account's rows as id bounds, since lists page by id: from the first row created at or
 * after `from` to just before the first one created at or after `to`, each found through the table's
 * (account_id, created_at, id) index. A page of a period then costs the page, however much history lies
 * after it (filtering on created_at walked every newer row). Adjacent periods share their bound, so each
 * row is in exactly one; a row whose transaction straddled a bound may fall on its other side by the
 * milliseconds the transaction took.
 */
export function periodConditions(
  table: 'sales' | 'withdrawals',
  account: string,
  period: { from: string | null; to: string | null },
  add: (value: unknown) => string,
): string[] {
  const firstAt = (at: string) =>
    `COALESCE((SELECT p.id FROM ${table} p WHERE p.account_id = ${account} AND p.created_at >= ${add(at)}::timestamptz
                ORDER BY p.created_at, p.id LIMIT 1), ${Number.MAX_SAFE_INTEGER})`;
  return [
    ...(period.from ? [`id >= ${firstAt(period.from)}`] : []),
    ...(period.to ? [`id < ${firstAt(period.to)}`] : []),
  ];
}

/** Cursors are opaque to clients: the base64url of the last row's id. */
export function encodeCursor(id: number): string {
  return Buffer.from(`c${id}`).toString('base64url');
}

export function decodeCursor(raw: string): number {
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
