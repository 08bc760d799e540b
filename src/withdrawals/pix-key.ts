import { isUuid } from '../platform/ids/public-ids.js';
import { isCnpj, isCpf } from '../platform/text/documents.js';

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

/** A CPF or CNPJ written with or without its usual punctuation (. - /), checked by the one document check. */
const documentDigits = (key: string): string | null =>
  /^[\d./-]+$/.test(key) ? key.replace(/\D/g, '') : null;

export function validCpf(key: string): boolean {
  const d = documentDigits(key);
  return d !== null && isCpf(d);
}

export function validCnpj(key: string): boolean {
  const d = documentDigits(key);
  return d !== null && isCnpj(d);
}
