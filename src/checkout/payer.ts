import { isEmailAddress } from '../platform/net/email.js';
import { isCnpj, isCpf } from '../platform/text/documents.js';
import type { Customer } from '../sales/index.js';
import { CheckoutInputError } from './errors.js';

/** What a payer types on a public page (a session may have given some of it beforehand). */
export interface PayerInput {
  name?: string;
  email?: string;
  document?: string;
  phone?: string;
}

/**
 * The sale's customer from the payer's fields: name, email and a CPF or CNPJ whose check digits are right; phone
 * optional (stored empty when none). A session's prefilled buyer stands in for the e-mail and phone only: the
 * name and document are printed on a boleto and its receipt, and whoever holds the session's URL must type them,
 * never be shown or handed someone else's.
 */
export function payerOf(given: PayerInput, prefilled: PayerInput | null = null): Customer {
  const field = (key: keyof PayerInput) =>
    (given[key] ?? (key === 'email' || key === 'phone' ? prefilled?.[key] : undefined) ?? '').trim();
  const name = field('name');
  if (!name) throw new CheckoutInputError('name is required');
  const email = field('email');
  if (!isEmailAddress(email)) throw new CheckoutInputError(`email "${email}" is not an email address`);
  const document = field('document').replace(/[.\-/\s]/g, '');
  if (!isCpf(document) && !isCnpj(document)) {
    throw new CheckoutInputError('document must be a valid CPF (11 digits) or CNPJ (14 digits)');
  }
  const phone = field('phone').replace(/[\s()+-]/g, '');
  if (phone !== '' && !/^\d{10,13}$/.test(phone)) {
    throw new CheckoutInputError('phone must have 10 to 13 digits');
  }
  return { name, email, document, phone };
}

/** A session's prefilled buyer, checked field by field as far as given. */
export function prefilledPayer(given: PayerInput | undefined): PayerInput | null {
  if (!given) return null;
  if (given.email !== undefined && !isEmailAddress(given.email.trim())) {
    throw new CheckoutInputError(`customer.email "${given.email}" is not an email address`);
  }
  if (given.document !== undefined) {
    const document = given.document.replace(/[.\-/\s]/g, '');
    if (!isCpf(document) && !isCnpj(document)) {
      throw new CheckoutInputError('customer.document must be a valid CPF (11 digits) or CNPJ (14 digits)');
    }
  }
  return given;
}
