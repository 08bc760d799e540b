/** Subscription periods (src/subscriptions/periods.ts): month ends done right, counted from the anchor. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/platform/time/calendar.js';
import { localDateOf, periodDate, startOf } from '../../src/subscriptions/periods.js';

describe('subscription periods', () => {
  it('a subscription of Jan 31 renews Feb 28 (29 in a leap year), then Mar 31', () => {
    const dates = (anchor: string) => [1, 2, 3, 4].map((n) => periodDate(anchor, 'month', 1, n));
    expect(dates('2027-01-31')).toEqual(['2027-02-28', '2027-03-31', '2027-04-30', '2027-05-31']);
    expect(dates('2028-01-31')).toEqual(['2028-02-29', '2028-03-31', '2028-04-30', '2028-05-31']);
    expect(periodDate('2028-02-29', 'year', 1, 1)).toBe('2029-02-28');
    expect(periodDate('2028-02-29', 'year', 1, 4)).toBe('2032-02-29');
    expect(periodDate('2026-12-15', 'month', 3, 1)).toBe('2027-03-15');
    expect(periodDate('2026-12-29', 'week', 1, 1)).toBe('2027-01-05');
    expect(periodDate('2026-11-26', 'week', 2, 3)).toBe('2027-01-07');
  });

  it('every period is later than the one before, keeps the anchor day where the month has it, and never drifts', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('2000-01-01T00:00:00Z'),
          max: new Date('2090-12-31T00:00:00Z'),
          noInvalidDate: true,
        }),
        fc.constantFrom('week' as const, 'month' as const, 'year' as const),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 40 }),
        (at, interval, count, n) => {
          const anchor = at.toISOString().slice(0, 10);
          const before = periodDate(anchor, interval, count, n - 1);
          const next = periodDate(anchor, interval, count, n);
          expect(next > before).toBe(true);
          if (interval !== 'week') {
            const day = Number(anchor.slice(8));
            const [y, m] = next.split('-').map(Number) as [number, number];
            const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
            expect(Number(next.slice(8))).toBe(Math.min(day, last));
          }
        },
      ),
    );
  });

  it('dates are São Paulo dates: midnight there is 03:00 UTC', () => {
    expect(startOf('2026-11-26').toISOString()).toBe('2026-11-26T03:00:00.000Z');
    expect(localDateOf(new Date('2026-11-27T02:59:00Z'))).toBe('2026-11-26');
    expect(addDays('2026-12-30', 5)).toBe('2027-01-04');
  });
});
