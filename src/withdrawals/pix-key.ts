import { isUuid } from '../platform/ids/public-ids.js';

/** PIX key rules of decisions.md (Money and statuses): length 8–77, then per type. */
export const PIX_KEY_TYPES = ['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'RANDOM'] as const;
export type PixKeyType = (typeof PIX_KEY_TYPES)[number];

const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const PHONE = /^\+55\d{10,11}$/;

/** Returns why the key is invalid, or null when it is valid for its type. */
export function pixKeyProblem(key: string, type: PixKeyType): string | null {
  if (key.length < 8 || key.length > 77) return 'pixKey must have 8 to 77 characters';
  switch (type) {
    case 'CPF':
      return validCpf(key) ? null : 'pixKey is not a valid CPF';
    case 'CNPJ':
      return validCnpj(key) ? null : 'pixKey is not a valid CNPJ';
    case 'EMAIL':
      return EMAIL.test(key) ? null : 'pixKey is not a valid email address';
    case 'PHONE':
      return PHONE.test(key) ? null : 'pixKey must be a phone number as +55 followed by 10 or 11 digits';
    case 'RANDOM':
      return isUuid(key) ? null : 'pixKey of type RANDOM must be a UUID';
  }
}

/** Digits of a CPF/CNPJ written with or without its usual punctuation (. - /); null for anything else. */
function documentDigits(key: string, length: number): number[] | null {
  if (!/^[\d./-]+$/.test(key)) return null;
  const digits = key.replace(/\D/g, '');
  if (digits.length !== length || /^(\d)\1+$/.test(digits)) return null;
  return [...digits].map(Number);
}

function checkDigit(digits: number[], weights: number[]): number {
  const sum = weights.reduce((acc, w, i) => acc + w * digits[i]!, 0);
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

export function validCpf(key: string): boolean {
  const d = documentDigits(key, 11);
  if (!d) return false;
  const first = checkDigit(d, [10, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = checkDigit(d, [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
  return d[9] === first && d[10] === second;
}

export function validCnpj(key: string): boolean {
  const d = documentDigits(key, 14);
  if (!d) return false;
  const first = checkDigit(d, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = checkDigit(d, [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  return d[12] === first && d[13] === second;
}
