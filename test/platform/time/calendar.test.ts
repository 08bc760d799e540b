import { describe, expect, it } from 'vitest';
import { isRealCalendarTime } from '../../../src/platform/time/calendar.js';

describe('isRealCalendarTime', () => {
  it.each([
    '2026-01-31',
    '2024-02-29',
    '2026-11-23T00:00',
    '2026-11-23T23:59:59',
    '2026-11-23T23:59:59.123Z',
    '2026-11-23T12:00:00-03:00',
    '2026-11-23T12:00:00+0530',
    '1900-01-01',
    '9998-12-31',
  ])('%s exists', (raw) => {
    expect(isRealCalendarTime(raw)).toBe(true);
  });

  it.each([
    '2026-02-29',
    '2026-02-30',
    '2026-04-31',
    '2026-11-31',
    '2026-13-01',
    '2026-00-10',
    '2026-01-00',
    '0000-01-01',
    '0100-01-01',
    '1899-12-31',
    '9999-12-31',
    '2026-11-23T24:00:00Z',
    '2026-11-23T12:60:00Z',
    '2026-11-23T12:00:60Z',
    '2026-11-23T12:00:00+24:00',
    'yesterday',
  ])('%s does not', (raw) => {
    expect(isRealCalendarTime(raw)).toBe(false);
  });
});
