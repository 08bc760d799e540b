import { digitsOf, isCnpj, isCpf } from './document';
import { centsOf, money } from './money';

/** What the payer typed. */
export interface PayerFields {
  name: string;
  email: string;
  document: string;
  amount: string;
}
export type FieldName = keyof PayerFields;

/** The same rule as the gateway's (src/platform/net/email.ts). */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A field's problem in Portuguese, or null when it is right. */
export function problemOf(
  field: FieldName,
  value: string,
  range: { min: number; max: number } | null,
): string | null {
  switch (field) {
    case 'name':
      return value.trim() ? null : 'Informe seu nome.';
    case 'email':
      if (!value.trim()) return 'Informe seu e-mail.';
      return EMAIL.test(value.trim()) ? null : 'Confira o e-mail: ele deve ser como nome@exemplo.com.br.';
    case 'document': {
      const d = digitsOf(value);
      if (d.length === 0) return 'Informe seu CPF ou CNPJ.';
      if (d.length === 11) return isCpf(d) ? null : 'CPF inválido: confira os números.';
      if (d.length === 14) return isCnpj(d) ? null : 'CNPJ inválido: confira os números.';
      return 'Um CPF tem 11 dígitos; um CNPJ, 14.';
    }
    case 'amount': {
      if (!range) return null;
      const cents = centsOf(value);
      if (cents === null) return 'Informe o valor, por exemplo 50,00.';
      if (cents < range.min || cents > range.max) {
        return `O valor deve ser de ${money(range.min)} a ${money(range.max)}.`;
      }
      return null;
    }
  }
}

/**
 * Whether a field's problem is shown yet: as the payer types, once the field could be complete (a CPF's or
 * CNPJ's last digit, an e-mail with its domain), and always after they leave it or press pay.
 */
export function showsProblem(field: FieldName, value: string, left: boolean): boolean {
  if (left) return true;
  if (field === 'document') return digitsOf(value).length >= 11;
  if (field === 'email') return /@[^@\s]+\.[^@\s]{2,}$/.test(value.trim());
  return false;
}
