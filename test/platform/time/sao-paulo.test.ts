import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePage } from '../../../src/platform/paging/pagination.js';
import { fromSaoPaulo, saoPauloOffset, toSaoPaulo } from '../../../src/platform/time/sao-paulo.js';

describe('São Paulo time from the time zone database', () => {
  it('is -03:00 now and was -02:00 in the daylight-saving summers before 2019', () => {
    expect(saoPauloOffset(new Date('2026-11-23T12:00:00Z'))).toBe('-03:00');
    expect(saoPauloOffset(new Date('2018-12-01T12:00:00Z'))).toBe('-02:00');
    expect(saoPauloOffset(new Date('2018-06-01T12:00:00Z'))).toBe('-03:00');
  });

  it('answers what the time zone database says at any instant, however often an hour is asked', () => {
    const intl = new Intl.DateTimeFormat('en-US', {
      timeZone: 'America/Sao_Paulo',
      timeZoneName: 'longOffset',
    });
    const expected = (at: Date) => {
      const name = intl.formatToParts(at).find((p) => p.type === 'timeZoneName')!.value;
      // (to the minute: ISO 8601 offsets have none of local mean time's seconds, -03:06:28 before 1914)
      return name === 'GMT' ? '+00:00' : name.slice(3, 9);
    };
    // the start of daylight saving in 2018 (00:00 became 01:00, at 03:00 UTC) and its end in 2019
    const edges = [Date.UTC(2018, 10, 4, 3), Date.UTC(2019, 1, 17, 2)];
    const instant = fc.oneof(
      fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2100, 0, 1) }),
      fc.constantFrom(...edges).chain((edge) => fc.integer({ min: edge - 7_200_000, max: edge + 7_200_000 })),
    );
    fc.assert(
      fc.property(fc.array(instant, { minLength: 1, maxLength: 20 }), (instants) => {
        for (const ms of [...instants, ...instants])
          expect(saoPauloOffset(new Date(ms))).toBe(expected(new Date(ms)));
      }),
      { numRuns: 500 },
    );
    expect(saoPauloOffset(new Date(edges[0]! - 1))).toBe('-03:00');
    expect(saoPauloOffset(new Date(edges[0]!))).toBe('-02:00');
  });

  it('reads wall-clock times and writes instants with their offset', () => {
    expect(fromSaoPaulo('2026-11-23T00:00:00').toISOString()).toBe('2026-11-23T03:00:00.000Z');
    expect(fromSaoPaulo('2026-11-23T09:30').toISOString()).toBe('2026-11-23T12:30:00.000Z');
    expect(fromSaoPaulo('2018-12-01T00:00:00').toISOString()).toBe('2018-12-01T02:00:00.000Z');
    expect(toSaoPaulo(new Date('2026-11-23T12:30:00.250Z'))).toBe('2026-11-23T09:30:00.250-03:00');
    expect(toSaoPaulo(new Date('2018-12-01T12:00:00Z'))).toBe('2018-12-01T10:00:00.000-02:00');
  });
});

describe('period bounds', () => {
  const page = (from: string, to?: string) => parsePage({ from, ...(to ? { to } : {}) });

  it('a bare date is a whole São Paulo day, whatever the offset of that season', () => {
    expect(page('2026-11-23', '2026-11-23')).toMatchObject({
      from: '2026-11-23T03:00:00.000Z',
      to: '2026-11-24T03:00:00.000Z',
    });
    expect(page('2018-12-01', '2018-12-01')).toMatchObject({
      from: '2018-12-01T02:00:00.000Z',
      to: '2018-12-02T02:00:00.000Z',
    });
    // before 1914 the zone's offset was local mean time, -03:06:28, which ISO 8601 writes to the minute
    expect(page('1900-01-01', '1913-12-31')).toMatchObject({
      from: '1900-01-01T03:06:00.000Z',
      to: '1914-01-01T03:06:00.000Z',
    });
    expect(toSaoPaulo(new Date('1900-01-01T12:00:00Z'))).toBe('1900-01-01T08:54:00.000-03:06');
  });

  it('a date-time without an offset is São Paulo time, not the server’s zone; with one, as written', () => {
    expect(page('2026-11-23T09:30').from).toBe('2026-11-23T12:30:00.000Z');
    expect(page('2026-11-23T09:30:00Z').from).toBe('2026-11-23T09:30:00.000Z');
    expect(page('2026-11-23T09:30:00+01:00').from).toBe('2026-11-23T08:30:00.000Z');
  });
});
