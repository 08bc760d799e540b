import { fromSaoPaulo } from '../platform/time/sao-paulo.js';

/** The longest window one run asked for covers (the command line's and the console's). */
export const MAX_SPAN_DAYS = 31;
const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?)?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * An ISO 8601 instant; without an offset it is São Paulo wall-clock time (a bare date: its midnight). A string
 * saying what is wrong with it otherwise.
 */
export function parseInstant(raw: string): Date | string {
  if (!ISO.test(raw)) return `must be an ISO 8601 date or time, got "${raw}"`;
  const zoned = /(Z|[+-]\d{2}:\d{2})$/.test(raw) && raw.includes('T');
  const at = zoned ? new Date(raw) : fromSaoPaulo(raw.includes('T') ? raw : `${raw}T00:00`);
  if (!Number.isFinite(at.getTime()) || !realDay(raw)) return `is not a real time: "${raw}"`;
  return at;
}

/** A date such as 2026-11-31 rolls over to December in `Date`: such a day is not a real one. */
function realDay(raw: string): boolean {
  const day = raw.slice(0, 10);
  const back = new Date(`${day}T12:00:00Z`);
  return Number.isFinite(back.getTime()) && back.toISOString().slice(0, 10) === day;
}

/** What is wrong with a window to reconcile, or null: it must end after it starts, within MAX_SPAN_DAYS. */
export function windowProblem(from: Date, to: Date): string | null {
  if (to <= from) return 'the window must end after it starts (to after from)';
  if (to.getTime() - from.getTime() > MAX_SPAN_DAYS * 86_400_000) {
    return `a window spans at most ${MAX_SPAN_DAYS} days`;
  }
  return null;
}
