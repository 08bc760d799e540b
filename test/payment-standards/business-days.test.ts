/**
 * Banking days: a due date on a weekend or a national holiday is moved to the next business day (the Central
 * Bank's API Pix, cobv `validadeAposVencimento`, whose examples these follow; FEBRABAN).
 */
import { describe, expect, it } from 'vitest';
import {
  bankHolidays,
  easter,
  isBusinessDay,
  nextBusinessDay,
} from '../../src/payment-standards/business-days.js';

describe('banking days', () => {
  it('finds Easter, and the holidays that move with it', () => {
    expect([2024, 2025, 2026, 2027, 2038].map(easter)).toEqual([
      '2024-03-31',
      '2025-04-20',
      '2026-04-05',
      '2027-03-28',
      '2038-04-25',
    ]);
    const y2027 = bankHolidays(2027);
    // Carnival Monday and Tuesday, Good Friday, Corpus Christi
    for (const day of ['2027-02-08', '2027-02-09', '2027-03-26', '2027-05-27'])
      expect(y2027.has(day)).toBe(true);
    expect(y2027.has('2027-11-20')).toBe(true);
    expect(bankHolidays(2023).has('2023-11-20')).toBe(false);
  });

  it.each([
    ['a Tuesday', '2020-10-20', '2020-10-20'],
    ['a Saturday', '2026-12-05', '2026-12-07'],
    ['a Sunday', '2026-12-06', '2026-12-07'],
    ['Christmas, a Friday (the API Pix example B)', '2020-12-25', '2020-12-28'],
    ['Carnival Monday', '2027-02-08', '2027-02-10'],
    ['the Saturday before Carnival', '2027-02-06', '2027-02-10'],
    ['Tiradentes, a Tuesday', '2026-04-21', '2026-04-22'],
    ['New Year, a Friday', '2027-01-01', '2027-01-04'],
  ])('moves %s (%s) to %s', (_, date, next) => {
    expect(nextBusinessDay(date)).toBe(next);
    expect(isBusinessDay(next)).toBe(true);
    expect(isBusinessDay(date)).toBe(date === next);
  });
});
