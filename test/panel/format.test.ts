import { describe, expect, it } from 'vitest';
import { centsOf, digitableLineText, timeLeft } from '../../panel/src/ui/format.js';

describe('digitableLineText', () => {
  it('groups the 47 digits as a bank prints them, and leaves anything else as it came', () => {
    expect(digitableLineText('23791234059000000000102001234505164400000025990')).toBe(
      '23791.23405 90000.000001 02001.234505 1 64400000025990',
    );
    expect(digitableLineText('123')).toBe('123');
  });
});

describe('timeLeft', () => {
  const now = Date.parse('2026-11-25T12:00:00Z');
  it.each([
    ['2026-12-02T12:00:00Z', '7 dias e 0 h'],
    ['2026-11-26T15:30:00Z', '1 dia e 3 h'],
    ['2026-11-25T17:12:00Z', '5 h e 12 min'],
    ['2026-11-25T12:12:30Z', '12 min'],
    ['2026-11-25T12:00:10Z', '1 min'],
    ['2026-11-25T12:00:00Z', 'prazo encerrado'],
    ['2026-11-24T12:00:00Z', 'prazo encerrado'],
  ])('%s → %s', (iso, text) => {
    expect(timeLeft(iso, now)).toBe(text);
  });
});

describe('centsOf', () => {
  it.each([
    ['15,00', 1500],
    ['1.000', 100_000],
    ['1.234,56', 123_456],
    ['R$ 10,50', 1050],
    ['r$10,5', 1050],
    ['1234.56', 123_456],
    ['0', 0],
  ])('reads %s as %i cents, as a Brazilian writes it', (typed, cents) => {
    expect(centsOf(typed)).toBe(cents);
  });
  it.each(['10,555', 'dez', 'R$', '1,2,3', '-5'])('reads %s as no amount', (typed) => {
    expect(centsOf(typed)).toBeNull();
  });
});
