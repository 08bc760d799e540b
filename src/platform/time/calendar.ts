/** Years an ISO 8601 date may name here: every date of the service's life, and nothing PostgreSQL or Date cannot hold. */
const FIRST_YEAR = 1900;
const LAST_YEAR = 9998;

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?)?/;
const OFFSET = /[+-](\d{2}):?(\d{2})$/;

/**
 * Whether the date and time an ISO 8601 text names exist: a day that the month has (not 2026-02-30, which
 * Date would roll over into March), hours, minutes and seconds in range, an offset of at most 23:59, and a
 * year from 1900 to 9998. Callers check the text's format themselves.
 */
export function isRealCalendarTime(raw: string): boolean {
  const m = DATE_TIME.exec(raw);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < FIRST_YEAR || year > LAST_YEAR || month < 1 || month > 12) return false;
  if (day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return false;
  if (m[4] !== undefined && (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 59)) return false;
  const offset = m[4] !== undefined ? OFFSET.exec(raw.slice(m[0].length)) : null;
  return !offset || (Number(offset[1]) <= 23 && Number(offset[2]) <= 59);
}

/** What a date field takes, for the message refusing one. */
export const REAL_DATE_RULE = `a date YYYY-MM-DD that exists, years ${FIRST_YEAR} to ${LAST_YEAR}`;

/** A bare date YYYY-MM-DD naming a day that exists (REAL_DATE_RULE). */
export function isRealDate(raw: unknown): raw is string {
  return typeof raw === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(raw) && isRealCalendarTime(raw);
}

/** A calendar date (YYYY-MM-DD) plus whole days (negative: minus). */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}
