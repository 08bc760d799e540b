import { describe, expect, it } from 'vitest';
import { dueWindows } from '../../src/reconciliation/schedule.js';

const iso = (w: { schedule: string; start: Date; end: Date }) => [
  w.schedule,
  w.start.toISOString(),
  w.end.toISOString(),
];

describe('scheduled reconciliation windows', () => {
  it('every 10 minutes the two hours before the latest mark; the previous São Paulo day from 03:00 there', () => {
    // 02:59 in São Paulo: the daily run of the day before is not due yet
    expect(dueWindows(new Date('2026-11-24T05:59:59.999Z')).map(iso)).toEqual([
      ['frequent', '2026-11-24T03:50:00.000Z', '2026-11-24T05:50:00.000Z'],
    ]);
    expect(dueWindows(new Date('2026-11-24T06:00:00.000Z')).map(iso)).toEqual([
      ['frequent', '2026-11-24T04:00:00.000Z', '2026-11-24T06:00:00.000Z'],
      ['daily', '2026-11-23T03:00:00.000Z', '2026-11-24T03:00:00.000Z'],
    ]);
    // the same windows all day: each is one run however often it is asked
    expect(dueWindows(new Date('2026-11-25T02:59:00.000Z')).map(iso)[1]).toEqual([
      'daily',
      '2026-11-23T03:00:00.000Z',
      '2026-11-24T03:00:00.000Z',
    ]);
  });
});
