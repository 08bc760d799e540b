import type { BigNumberInput } from '@medusajs/framework/types';

/**
 * Medusa's amounts are in the currency's main unit (reais: `129.9`), as a number, a decimal string or one of its
 * BigNumber objects; the gateway's are integer cents. The decimal text is read digit by digit, never through a
 * float product (`0.29 * 100` is 28.999…).
 */
export function toCents(amount: BigNumberInput): number {
  const text = decimalText(amount);
  const match = /^(-?)(\d*)(?:\.(\d*))?$/.exec(text);
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) throw new Error(`not an amount: ${text}`);
  const [, sign, whole = '', fraction = ''] = match;
  const padded = `${fraction}000`;
  let cents = Number(whole || '0') * 100 + Number(padded.slice(0, 2));
  // a third decimal rounds half up (Medusa keeps more precision than the currency has)
  if (Number(padded[2]) >= 5) cents += 1;
  if (!Number.isSafeInteger(cents)) throw new Error(`amount out of range: ${text}`);
  return sign === '-' ? -cents : cents;
}

/**
 * An amount that must be whole cents (a refund: Medusa would record 0.005 where the gateway returned a cent, and
 * the two would disagree for good): null when it has a fraction of a cent.
 */
export function wholeCents(amount: BigNumberInput): number | null {
  const text = decimalText(amount);
  const fraction = /\.(\d*)$/.exec(text)?.[1] ?? '';
  return /^\d{0,2}0*$/.test(fraction) ? toCents(amount) : null;
}

/** Cents back to Medusa's unit: 12990 → 129.9. */
export function fromCents(cents: number): number {
  return cents / 100;
}

function decimalText(amount: BigNumberInput): string {
  if (typeof amount === 'number') {
    if (!Number.isFinite(amount)) throw new Error(`not an amount: ${amount}`);
    // toFixed(3): enough to round the cents; numbers in exponent form are written out
    return amount.toFixed(3);
  }
  if (typeof amount === 'string') return amount.trim();
  const object = amount as unknown as Record<string, unknown>;
  // Medusa's BigNumber (numeric), its raw form ({ value }), or bignumber.js (toFixed)
  if (typeof object.numeric === 'number') return decimalText(object.numeric);
  if (object.value !== undefined) return decimalText(object.value as string | number);
  if (typeof object.toFixed === 'function') return (object.toFixed as (digits: number) => string)(3);
  return String(amount);
}
