// The FEBRABAN boleto de cobrança: the 44-digit barcode and the 47-digit linha digitável (docs/decisions.md,
// "Boleto"), a payment rail's format like the BR Code: the boletos module issues them, the sandbox makes them for
// its sales. Pure functions, no I/O.

/** Day 0 of the due factor (fator de vencimento). */
const FACTOR_BASE = Date.UTC(1997, 9, 7);
const DAY_MS = 86_400_000;
/** The largest value the barcode's 10-digit value field holds, in cents. */
export const MAX_BOLETO_CENTS = 9_999_999_999;

/** Módulo 10 (weights 2, 1, 2, … from the right; two-digit products summed digit by digit). */
export function mod10(digits: string): number {
  let sum = 0;
  let weight = 2;
  for (let i = digits.length - 1; i >= 0; i--) {
    const product = Number(digits[i]) * weight;
    sum += product > 9 ? product - 9 : product;
    weight = weight === 2 ? 1 : 2;
  }
  return (10 - (sum % 10)) % 10;
}

/** Módulo 11 weights 2..9 from the right, the barcode's general check digit: 0, 10 and 11 become 1. */
export function barcodeCheckDigit(digits43: string): number {
  let sum = 0;
  let weight = 2;
  for (let i = digits43.length - 1; i >= 0; i--) {
    sum += Number(digits43[i]) * weight;
    weight = weight === 9 ? 2 : weight + 1;
  }
  const dv = 11 - (sum % 11);
  return dv === 0 || dv === 10 || dv === 11 ? 1 : dv;
}

/**
 * The due factor of a date (YYYY-MM-DD): days since 1997-10-07, which reached 9999 on 2025-02-21; from
 * 2025-02-22 it restarts at 1000 and runs 9000 days per cycle.
 */
export function dueFactor(date: string): string {
  const days = Math.round((Date.parse(`${date}T00:00:00Z`) - FACTOR_BASE) / DAY_MS);
  if (!Number.isInteger(days) || days < 1000) throw new RangeError(`no due factor for ${date}`);
  return String(((days - 1000) % 9000) + 1000);
}

/** The due date of a factor, as the cycle that holds `near` (a date within ±4500 days of it) reads it. */
export function dateOfFactor(factor: string, near: string): string {
  const base = Math.round((Date.parse(`${near}T00:00:00Z`) - FACTOR_BASE) / DAY_MS);
  let days = Number(factor);
  while (days + 4500 < base) days += 9000;
  return new Date(FACTOR_BASE + days * DAY_MS).toISOString().slice(0, 10);
}

export interface BarcodeInput {
  /** COMPE code, 3 digits. */
  bank: string;
  dueDate: string;
  amountCents: number;
  /** The issuing bank's 25 digits. */
  campoLivre: string;
}

/** The 44 digits: bank, currency 9, general check digit, due factor, value, campo livre. */
export function barcode(input: BarcodeInput): string {
  if (!/^\d{3}$/.test(input.bank)) throw new RangeError('bank must be 3 digits');
  if (!/^\d{25}$/.test(input.campoLivre)) throw new RangeError('campo livre must be 25 digits');
  if (!Number.isInteger(input.amountCents) || input.amountCents < 0 || input.amountCents > MAX_BOLETO_CENTS)
    throw new RangeError('amount out of the barcode range');
  const value = String(input.amountCents).padStart(10, '0');
  const rest = `${dueFactor(input.dueDate)}${value}${input.campoLivre}`;
  const head = `${input.bank}9`;
  return `${head}${barcodeCheckDigit(head + rest)}${rest}`;
}

/** The linha digitável of a barcode: three fields with their mod 10 digits, the general digit, factor+value. */
export function digitableLine(code: string): string {
  if (!/^\d{44}$/.test(code)) throw new RangeError('a barcode has 44 digits');
  const free = code.slice(19);
  const f1 = code.slice(0, 4) + free.slice(0, 5);
  const f2 = free.slice(5, 15);
  const f3 = free.slice(15, 25);
  return `${f1}${mod10(f1)}${f2}${mod10(f2)}${f3}${mod10(f3)}${code[4]}${code.slice(5, 19)}`;
}

/** The barcode a linha digitável stands for, or null when the line's check digits do not hold. */
export function barcodeOfLine(line: string): string | null {
  if (!/^\d{47}$/.test(line)) return null;
  const f1 = line.slice(0, 9);
  const f2 = line.slice(10, 20);
  const f3 = line.slice(21, 31);
  if (mod10(f1) !== Number(line[9]) || mod10(f2) !== Number(line[20]) || mod10(f3) !== Number(line[31]))
    return null;
  const code = `${f1.slice(0, 4)}${line[32]}${line.slice(33)}${f1.slice(4)}${f2}${f3}`;
  return isBarcode(code) ? code : null;
}

/** 44 digits whose general check digit holds. */
export function isBarcode(code: string): boolean {
  return /^\d{44}$/.test(code) && barcodeCheckDigit(code.slice(0, 4) + code.slice(5)) === Number(code[4]);
}

/** The line as people read it: 00000.00000 00000.000000 00000.000000 0 00000000000000. */
export function formatLine(line: string): string {
  return `${line.slice(0, 5)}.${line.slice(5, 10)} ${line.slice(10, 15)}.${line.slice(15, 21)} ${line.slice(21, 26)}.${line.slice(26, 32)} ${line[32]} ${line.slice(33)}`;
}
