/**
 * São Paulo time, where the merchants are, through the time zone database rather than a fixed -03:00: Brazil
 * dropped daylight saving in 2019, and dates from before (or after a return of it) keep their own offset.
 * Imported by the panel too (no Node dependency).
 */
const OFFSET = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/Sao_Paulo',
  timeZoneName: 'longOffset',
});

const HOUR_MS = 3_600_000;
/** Offsets by hour since the epoch, for hours with no change of offset inside them: Intl is slow per call. */
const byHour = new Map<number, string>();

/** São Paulo's offset from UTC at an instant, as "-03:00". */
export function saoPauloOffset(at: Date): string {
  const hour = Math.floor(at.getTime() / HOUR_MS);
  const known = byHour.get(hour);
  if (known !== undefined) return known;
  if (Number.isNaN(hour)) return offsetAt(at);
  const offset = offsetAt(new Date(hour * HOUR_MS));
  // an hour the offset changes in is asked of Intl each time
  if (offsetAt(new Date((hour + 1) * HOUR_MS - 1)) !== offset) return offsetAt(at);
  if (byHour.size >= 10_000) byHour.clear();
  byHour.set(hour, offset);
  return offset;
}

function offsetAt(at: Date): string {
  const name = OFFSET.formatToParts(at).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT-03:00';
  // before 1914 São Paulo kept its local mean time, GMT-03:06:28: ISO 8601 offsets have no seconds (a date
  // filter of 1900 is the day's start within those 28 seconds)
  return name === 'GMT' ? '+00:00' : name.slice(3, 9);
}

/** The instant a São Paulo wall-clock time ("2026-11-23T00:00:00", seconds optional) names. */
export function fromSaoPaulo(local: string): Date {
  const full = local.length === 16 ? `${local}:00` : local;
  const guess = new Date(`${full}-03:00`);
  return new Date(`${full}${saoPauloOffset(guess)}`);
}

/** An instant as ISO 8601 in São Paulo time with its offset: 2026-11-23T09:30:00.000-03:00. */
export function toSaoPaulo(at: Date): string {
  const offset = saoPauloOffset(at);
  const minutes =
    (offset.startsWith('-') ? -1 : 1) * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4)));
  return `${new Date(at.getTime() + minutes * 60_000).toISOString().slice(0, 23)}${offset}`;
}
