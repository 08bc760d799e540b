import { percentOf } from '../platform/money.js';

export interface CashoutFees {
  fixed: number;
  variable: number;
  total: number;
  net: number;
}

/** fees.variable = amount × percent rounded half-up to the cent; netAmount = amount − fees.total. */
export function cashoutFees(amountCents: number, fixedCents: number, percentE4: number): CashoutFees {
  const variable = percentOf(amountCents, percentE4);
  const total = fixedCents + variable;
  return { fixed: fixedCents, variable, total, net: amountCents - total };
}
