import { digitsOf, isCnpj, isCpf } from './document';
import { centsOf, money } from './money';

/** What the payer typed (the address only for a boleto). */
export interface PayerFields {
  name: string;
  email: string;
  document: string;
  amount: string;
  zipCode: string;
  street: string;
  number: string;
  district: string;
  city: string;
  state: string;
}

/** The fields a boleto adds: its registration carries the payer's address. */
export const ADDRESS_FIELDS = ['zipCode', 'street', 'number', 'district', 'city', 'state'] as const;

export const UFS = 'AC AL AP AM BA CE DF ES GO MA MT MS MG PA PB PR PE PI RJ RN RS RO RR SC SP SE TO'.split(
  ' ',
);

/** A CEP's digits as typed, punctuated 00000-000. */
export const zipMask = (text: string): string =>
  digitsOf(text)
    .slice(0, 8)
    .replace(/^(\d{5})(\d)/, '$1-$2');
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
    case 'zipCode':
      return digitsOf(value).length === 8 ? null : 'Um CEP tem 8 dígitos.';
    case 'street':
      return value.trim() ? null : 'Informe a rua.';
    case 'number':
      return value.trim() ? null : 'Informe o número (ou S/N).';
    case 'district':
      return value.trim() ? null : 'Informe o bairro.';
    case 'city':
      return value.trim() ? null : 'Informe a cidade.';
    case 'state':
      return UFS.includes(value) ? null : 'Escolha o estado.';
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
  if (field === 'zipCode') return digitsOf(value).length >= 8;
  return false;
}
