import { AppError } from '../platform/errors/app-error.js';
import { percentOf } from '../platform/money/money.js';

export const MIN_CASHOUT_CENTS = 10_000;
export const MAX_CASHOUT_CENTS = 10_000_000;

export interface WithdrawalFees {
  fixed: number;
  variable: number;
  total: number;
  net: number;
}

/** fees.variable = amount × percent rounded half-up to the cent; netAmount = amount − fees.total. */
export function withdrawalFees(amountCents: number, fixedCents: number, percentE4: number): WithdrawalFees {
  const variable = percentOf(amountCents, percentE4);
  const total = fixedCents + variable;
  return { fixed: fixedCents, variable, total, net: amountCents - total };
}

/**
 * The amount's own rules (minimum, maximum, fees it must cover) and its fees at the account's rates: what
 * a cashout checks after its switches, and what the panel's fee preview answers before one is sent.
 */
export function amountFees(amountCents: number, fixedCents: number, percentE4: number): WithdrawalFees {
  if (amountCents < MIN_CASHOUT_CENTS) {
    throw new AppError('MINIMUM_VALUE', 'The minimum cashout amount is 100.00');
  }
  if (amountCents > MAX_CASHOUT_CENTS) {
    throw new AppError('MAXIMUM_VALUE', 'The maximum cashout amount is 100000.00');
  }
  const fees = withdrawalFees(amountCents, fixedCents, percentE4);
  if (fees.net <= 0) throw new AppError('GENERAL_ERROR', 'The amount does not cover the cashout fees');
  return fees;
}
