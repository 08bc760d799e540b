// Brazil's banking days: what moves a due date that falls on a weekend or a national holiday. The Central
// Bank's API Pix (cobv, `calendario.validadeAposVencimento`) and FEBRABAN's boleto rules both prorrogate such a
// date to the next business day, and every date that refers to it (the last day to pay, the discount, the fine
// and the interest) with it. Local holidays (a city's) are not known here: only the national ones, on which no
// bank clears anywhere.

const DAY_MS = 86_400_000;

/** A date (YYYY-MM-DD) plus whole days. */
const plus = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** Easter Sunday of a Gregorian year (the anonymous algorithm, as Meeus gives it). */
export function easter(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

const holidayCache = new Map<number, ReadonlySet<string>>();

/**
 * The national days without banking of a year: the fixed holidays (Lei 662/1949, Lei 6.802/1980 and, from 2024,
 * Lei 14.759/2023's 20 November), Good Friday, and Carnival's Monday and Tuesday and Corpus Christi, on which
 * banks do not open (FEBRABAN's calendar).
 */
export function bankHolidays(year: number): ReadonlySet<string> {
  let days = holidayCache.get(year);
  if (!days) {
    const y = String(year).padStart(4, '0');
    const fixed = ['01-01', '04-21', '05-01', '09-07', '10-12', '11-02', '11-15', '12-25'];
    if (year >= 2024) fixed.push('11-20');
    const e = easter(year);
    days = new Set([
      ...fixed.map((md) => `${y}-${md}`),
      plus(e, -48),
      plus(e, -47),
      plus(e, -2),
      plus(e, 60),
    ]);
    holidayCache.set(year, days);
  }
  return days;
}

/** Whether banks clear on this date: not a Saturday or Sunday, nor a national holiday. */
export function isBusinessDay(date: string): boolean {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
  return weekday !== 0 && weekday !== 6 && !bankHolidays(Number(date.slice(0, 4))).has(date);
}

/** The date itself when banks clear on it, else the first one after it that they do. */
export function nextBusinessDay(date: string): string {
  let day = date;
  while (!isBusinessDay(day)) day = plus(day, 1);
  return day;
}
