import { BRAND_LENGTHS, brandOf, type CardBrand } from './brands.js';
import { CardInputError } from './errors.js';

/** A card as the payer typed it (the route's body). */
export interface CardInput {
  number: string;
  holderName: string;
  expMonth: number;
  expYear: number;
  cvv: string;
}

/** A card that passed every check: the number as digits only, its brand. */
export interface CheckedCard {
  number: string;
  holderName: string;
  expMonth: number;
  expYear: number;
  cvv: string;
  brand: CardBrand;
}

export const MAX_YEARS_AHEAD = 20;

/** The Luhn (mod 10) check digit is right. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * A card can be used through the end of its expiry month: a month before the current one (São Paulo's
 * calendar is not needed: a day's difference at a month's edge is the acquirer's to refuse).
 */
export function expiryProblem(month: number, year: number, now: Date): string | null {
  if (!Number.isInteger(month) || month < 1 || month > 12) return 'expMonth must be a month from 1 to 12';
  const thisYear = now.getUTCFullYear();
  if (!Number.isInteger(year) || year < thisYear || year > thisYear + MAX_YEARS_AHEAD) {
    return `expYear must be a four-digit year from ${thisYear} to ${thisYear + MAX_YEARS_AHEAD}`;
  }
  if (year === thisYear && month < now.getUTCMonth() + 1) return 'expMonth is past: the card has expired';
  return null;
}

/**
 * Every check of a card before it is sent to the acquirer. The messages name the field and never repeat
 * its value: the number and the CVV must not reach an error body or a log.
 */
export function checkCard(input: CardInput, now: Date): CheckedCard {
  const number = input.number.replace(/[ -]/g, '');
  if (!/^\d{13,19}$/.test(number)) throw new CardInputError('number must be 13 to 19 digits');
  if (!luhnValid(number)) throw new CardInputError('number is not a valid card number (check digit)');
  const brand = brandOf(number);
  if (!brand) throw new CardInputError('number is of a card brand not accepted');
  if (!BRAND_LENGTHS[brand].includes(number.length)) {
    throw new CardInputError(`number has a length ${brand} does not issue`);
  }
  const holderName = input.holderName.trim();
  if (holderName.length < 1 || holderName.length > 100) {
    throw new CardInputError('holderName must be 1 to 100 characters');
  }
  const expiry = expiryProblem(input.expMonth, input.expYear, now);
  if (expiry) throw new CardInputError(expiry);
  const cvvLength = brand === 'amex' ? 4 : 3;
  if (!new RegExp(`^\\d{${cvvLength}}$`).test(input.cvv)) {
    throw new CardInputError(`cvv must be ${cvvLength} digits for ${brand}`);
  }
  return { number, holderName, expMonth: input.expMonth, expYear: input.expYear, cvv: input.cvv, brand };
}
