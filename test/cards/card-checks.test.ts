import { describe, expect, it } from 'vitest';
import { brandOf } from '../../src/cards/brands.js';
import { checkCard, expiryProblem, luhnValid } from '../../src/cards/card-checks.js';
import { CardInputError } from '../../src/cards/errors.js';
import { badCheckDigit, cardNumber } from './cards.js';

const now = new Date('2026-11-25T12:00:00Z');
const card = (number: string, extra: Record<string, unknown> = {}) => ({
  number,
  holderName: 'MARIA SILVA',
  expMonth: 12,
  expYear: 2028,
  cvv: '123',
  ...extra,
});
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CardInputError);
    return (err as Error).message;
  }
  throw new Error('not refused');
};

describe('card checks', () => {
  it('Luhn: the published test numbers pass, one digit off fails', () => {
    for (const n of ['4111111111111111', '5555555555554444', '378282246310005', '6062825624254001']) {
      expect(luhnValid(n), n).toBe(true);
      expect(luhnValid(badCheckDigit(n)), n).toBe(false);
    }
    expect(luhnValid('')).toBe(false);
    expect(luhnValid('4111-1111')).toBe(false);
  });

  it('brands by BIN, Elo and Hipercard before Visa and Mastercard', () => {
    expect(brandOf('4111111111111111')).toBe('visa');
    expect(brandOf('5555555555554444')).toBe('mastercard');
    expect(brandOf('2221000000000009')).toBe('mastercard');
    expect(brandOf('2720990000000000')).toBe('mastercard');
    expect(brandOf('2721000000000000')).toBeNull();
    expect(brandOf('378282246310005')).toBe('amex');
    expect(brandOf('341111111111111')).toBe('amex');
    expect(brandOf('4011780000000000')).toBe('elo'); // an Elo BIN starting with 4
    expect(brandOf('5067000000000000')).toBe('elo'); // and one starting with 5
    expect(brandOf('6362970000000000')).toBe('elo');
    expect(brandOf('6504850000000000')).toBe('elo');
    expect(brandOf('6062825624254001')).toBe('hipercard');
    expect(brandOf('3841001111222233334')).toBe('hipercard');
    expect(brandOf('6011111111111117')).toBeNull(); // Discover: not accepted
    expect(brandOf('4111')).toBeNull();
  });

  it('expiry: this month still valid, last month expired, month 1..12, at most 20 years ahead', () => {
    expect(expiryProblem(11, 2026, now)).toBeNull();
    expect(expiryProblem(10, 2026, now)).toBe('expMonth is past: the card has expired');
    expect(expiryProblem(1, 2025, now)).toMatch(/expYear must be/);
    expect(expiryProblem(13, 2027, now)).toMatch(/expMonth/);
    expect(expiryProblem(0, 2027, now)).toMatch(/expMonth/);
    expect(expiryProblem(12, 2046, now)).toBeNull();
    expect(expiryProblem(1, 2047, now)).toMatch(/expYear must be a four-digit year from 2026 to 2046/);
  });

  it('CVV of 3 digits, 4 for Amex; holder 1..100; spaces and dashes in the number are allowed', () => {
    const visa = cardNumber('4');
    expect(checkCard(card(visa), now)).toMatchObject({ brand: 'visa', number: visa });
    const spaced = visa.replace(/(\d{4})/g, '$1 ').trim();
    expect(checkCard(card(spaced), now).number).toBe(visa);
    expect(refusal(() => checkCard(card(visa, { cvv: '1234' }), now))).toBe('cvv must be 3 digits for visa');
    expect(refusal(() => checkCard(card(visa, { cvv: '12a' }), now))).toMatch(/cvv/);
    const amex = cardNumber('37', 15);
    expect(checkCard(card(amex, { cvv: '1234' }), now).brand).toBe('amex');
    expect(refusal(() => checkCard(card(amex), now))).toBe('cvv must be 4 digits for amex');
    expect(refusal(() => checkCard(card(visa, { holderName: '   ' }), now))).toMatch(/holderName/);
    expect(refusal(() => checkCard(card(visa, { holderName: 'x'.repeat(101) }), now))).toMatch(/holderName/);
  });

  it('refusals name the field, never the number or the CVV', () => {
    const visa = cardNumber('4');
    const messages = [
      refusal(() => checkCard(card(badCheckDigit(visa)), now)),
      refusal(() => checkCard(card('12345'), now)),
      refusal(() => checkCard(card(cardNumber('6011')), now)),
      refusal(() => checkCard(card(cardNumber('4', 15)), now)),
      refusal(() => checkCard(card(visa, { cvv: '98' }), now)),
    ];
    for (const m of messages) {
      expect(m).not.toContain(visa.slice(0, 8));
      expect(m).not.toContain('98');
    }
    expect(messages[0]).toBe('number is not a valid card number (check digit)');
    expect(messages[2]).toBe('number is of a card brand not accepted');
  });
});
