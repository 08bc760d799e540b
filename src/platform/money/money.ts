/** Money is integer cents everywhere; reais strings are formatting only. */

/** The largest sale or cart: 1 billion reais, far above any real charge, far below 2^53 cents. */
export const MAX_CHARGE_CENTS = 100_000_000_000;

export function formatReais(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const reais = Math.trunc(abs / 100);
  const rest = abs % 100;
  return `${sign}${reais}.${rest.toString().padStart(2, '0')}`;
}

/** "150", "150.5", "150.50" → 15050. Anything else (signs, exponents, 3+ decimals) → null. */
export function parseReais(text: string): number | null {
  const m = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(text);
  if (!m) return null;
  const cents = Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  return Number.isSafeInteger(cents) ? cents : null;
}

/**
 * Percentages are integer ten-thousandths of a percent: "1.2" → 12000, "3.99" → 39900.
 * At most four decimals, 0..100.
 */
export function parsePercentE4(text: string): number | null {
  const m = /^(\d{1,3})(?:\.(\d{1,4}))?$/.exec(text);
  if (!m) return null;
  const value = Number(m[1]) * 10000 + Number((m[2] ?? '').padEnd(4, '0'));
  return value <= 1000000 ? value : null;
}

export function formatPercentE4(value: number): string {
  const whole = Math.trunc(value / 10000);
  const frac = (value % 10000).toString().padStart(4, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : `${whole}`;
}

/** amount × percent, rounded half-up to the cent, in integer arithmetic. */
export function percentOf(amountCents: number, percentE4: number): number {
  const product = BigInt(amountCents) * BigInt(percentE4);
  const divisor = 1000000n;
  return Number((product + divisor / 2n) / divisor);
}

/** Made once: building a formatter costs tens of microseconds, more than formatting with it. */
const BRL = new Intl.NumberFormat('pt-BR', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Cents as Brazilians read money: R$ 1.234,56. */
export function formatBrl(cents: number): string {
  return `R$ ${BRL.format(Number(cents) / 100)}`;
}
