import { fromSaoPaulo, toSaoPaulo } from '../platform/time/sao-paulo.js';

export type Interval = 'week' | 'month' | 'year';

/** How long a new subscription may wait for its first period's payment before it expires. */
export const INCOMPLETE_HOURS = 23;

/** A São Paulo calendar date, "YYYY-MM-DD". */
export type LocalDate = string;

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * The date `n` periods after the anchor, counted from the anchor each time (never from the previous period's
 * end): a subscription anchored on Jan 31 renews on Feb 28 (29 in a leap year), then Mar 31, not Mar 28. Months
 * and years keep the anchor's day, clamped to the month's last day; weeks are 7 days.
 */
export function periodDate(anchor: LocalDate, interval: Interval, count: number, n: number): LocalDate {
  const [y, m, d] = anchor.split('-').map(Number) as [number, number, number];
  if (interval === 'week') {
    const t = new Date(Date.UTC(y, m - 1, d + 7 * count * n));
    return `${t.getUTCFullYear()}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}`;
  }
  const months = (interval === 'year' ? 12 : 1) * count * n;
  const index = y * 12 + (m - 1) + months;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  return `${pad(year, 4)}-${pad(month)}-${pad(Math.min(d, daysIn(year, month)))}`;
}

/** The São Paulo date of an instant. */
/** A local date as Brazilians write it: 2026-12-01 → 01/12/2026. */
export const brDate = (date: LocalDate): string => date.split('-').reverse().join('/');

export const localDateOf = (at: Date): LocalDate => toSaoPaulo(at).slice(0, 10);

/** The instant a São Paulo date begins (its midnight there). */
export const startOf = (date: LocalDate): Date => fromSaoPaulo(`${date}T00:00:00`);
