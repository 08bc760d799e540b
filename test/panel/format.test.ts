import { describe, expect, it } from 'vitest';
import { digitableLineText } from '../../panel/src/ui/format.js';

describe('digitableLineText', () => {
  it('groups the 47 digits as a bank prints them, and leaves anything else as it came', () => {
    expect(digitableLineText('23791234059000000000102001234505164400000025990')).toBe(
      '23791.23405 90000.000001 02001.234505 1 64400000025990',
    );
    expect(digitableLineText('123')).toBe('123');
  });
});
