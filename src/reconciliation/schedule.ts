import { fromSaoPaulo, toSaoPaulo } from '../platform/time/sao-paulo.js';
import type { Schedule } from './runs.data.js';

const MINUTE = 60_000;
/** The frequent run: every 10 minutes, over the two hours before. */
export const FREQUENT_EVERY_MS = 10 * MINUTE;
const FREQUENT_SPAN_MS = 120 * MINUTE;
/** The daily run starts at this São Paulo hour, over the whole previous São Paulo day. */
const DAILY_AT = '03:00';

export interface Window {
  schedule: Schedule;
  start: Date;
  end: Date;
}

/**
 * The windows due at `now`: the latest 10-minute slot's two hours, and once it is 03:00 in São Paulo, the
 * previous São Paulo day. Every worker computes the same windows, so each is one run however many ask.
 */
export function dueWindows(now: Date): Window[] {
  const slot = Math.floor(now.getTime() / FREQUENT_EVERY_MS) * FREQUENT_EVERY_MS;
  const windows: Window[] = [
    { schedule: 'frequent', start: new Date(slot - FREQUENT_SPAN_MS), end: new Date(slot) },
  ];
  const today = toSaoPaulo(now).slice(0, 10);
  if (now >= fromSaoPaulo(`${today}T${DAILY_AT}`)) {
    const midnight = fromSaoPaulo(`${today}T00:00`);
    // the previous day's date, from an instant safely inside it
    const yesterday = toSaoPaulo(new Date(midnight.getTime() - 12 * 60 * MINUTE)).slice(0, 10);
    windows.push({ schedule: 'daily', start: fromSaoPaulo(`${yesterday}T00:00`), end: midnight });
  }
  return windows;
}
