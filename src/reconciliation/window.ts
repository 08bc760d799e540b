import { fromSaoPaulo } from '../platform/time/sao-paulo.js';

/** The longest window one run asked for covers (the command line's and the console's). */
export const MAX_SPAN_DAYS = 31;
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?)?(Z|[+-](\d{2}):(\d{2}))?$/;

/**
 * An ISO 8601 instant; without an offset it is São Paulo wall-clock time (a bare date: its midnight). A string
 * saying what is wrong with it otherwise: not the format, or a day, hour or offset that does not exist
 * (2026-02-30, 2026-13-01, T25:00), which `Date` would roll over or refuse.
 */
export function parseInstant(raw: string): Date | string {
  const m = ISO.exec(raw);
  if (!m) return `must be an ISO 8601 date or time, got "${raw.slice(0, 40)}"`;
  const [, year, month, day, hour = '00', minute = '00', second = '00', zone, offsetHours, offsetMinutes] = m;
  const noon = new Date(`${year}-${month}-${day}T12:00:00Z`);
  const realDay =
    Number.isFinite(noon.getTime()) && noon.toISOString().slice(0, 10) === `${year}-${month}-${day}`;
  const realTime = Number(hour) < 24 && Number(minute) < 60 && Number(second) < 60;
  const realOffset = offsetHours === undefined || (Number(offsetHours) < 24 && Number(offsetMinutes) < 60);
  if (!realDay || !realTime || !realOffset || (zone !== undefined && !raw.includes('T'))) {
    return `is not a real time: "${raw}"`;
  }
  const at = zone ? new Date(raw) : fromSaoPaulo(raw.includes('T') ? raw : `${raw}T00:00`);
  return Number.isFinite(at.getTime()) ? at : `is not a real time: "${raw}"`;
}

/**
 * What is wrong with a window to reconcile, or null: it must end after it starts, within MAX_SPAN_DAYS, and start
 * before `now` (the PSP has received nothing later).
 */
export function windowProblem(from: Date, to: Date, now = new Date()): string | null {
  if (to <= from) return 'the window must end after it starts (to after from)';
  if (to.getTime() - from.getTime() > MAX_SPAN_DAYS * 86_400_000) {
    return `a window spans at most ${MAX_SPAN_DAYS} days`;
  }
  if (from >= now) return 'the window starts in the future: the PSP has received nothing there yet';
  return null;
}
