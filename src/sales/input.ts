import { validation } from '../platform/errors/app-error.js';
import { isEmailAddress } from '../platform/net/email.js';
import { isCpfOrCnpj } from '../platform/text/documents.js';
import { isRealDate, REAL_DATE_RULE } from '../platform/time/calendar.js';
import { urlProblem } from '../webhooks/index.js';
import type { Customer } from './types.js';

/** Buyer data as given: document and phone are stored as digits only (notifications say "digits only"); phone may be empty. */
export function normalizeCustomer(c: Customer): Customer {
  const name = c.name.trim();
  if (!name) throw validation('customer.name must not be empty');
  const email = c.email.trim();
  if (!isEmailAddress(email)) throw validation(`customer.email "${c.email}" is not an email address`);
  const document = c.document.replace(/[.\-/\s]/g, '');
  if (!isCpfOrCnpj(document)) {
    throw validation(
      'customer.document must be a valid CPF or CNPJ: 11 or 14 digits whose check digits are right',
    );
  }
  const phone = c.phone.replace(/[\s()+-]/g, '');
  // none at all only from a payment link's or checkout session's payer (the API's schemas require one)
  if (phone !== '' && !/^\d{10,13}$/.test(phone))
    throw validation('customer.phone must have 10 to 13 digits');
  return { name, email, document, phone };
}

/** A postback target follows the same syntax rules as a webhook URL (the delivery engine checks addresses). */
export function normalizePostbackUrl(raw: string | undefined | null): string | null {
  if (raw === undefined || raw === null) return null;
  const problem = urlProblem(raw, 'postbackUrl');
  if (problem) throw validation(problem);
  return raw;
}

/** YYYY-MM-DD that names a real calendar day. */
export function parseDate(raw: string, field: string): string {
  if (!isRealDate(raw)) throw validation(`${field} must be ${REAL_DATE_RULE}`);
  return raw;
}

/**
 * What one sale may carry (docs/decisions.md, "Bounded sales"): `shipping` at most 4 KiB as JSON and nested
 * at most 4 levels, and customer, items and shipping together at most 32 KiB as JSON. Every copy of a sale
 * (its notifications, delivery log entries, panel lists) is then bounded too.
 */
export const SALE_LIMITS = { shippingBytes: 4096, shippingDepth: 4, saleBytes: 32768 } as const;

export function checkSaleSize(input: { customer: unknown; items: unknown; shipping?: unknown }): void {
  if (input.shipping !== undefined && input.shipping !== null) {
    const bytes = Buffer.byteLength(JSON.stringify(input.shipping), 'utf8');
    if (bytes > SALE_LIMITS.shippingBytes) {
      throw validation(`shipping must be at most ${SALE_LIMITS.shippingBytes} bytes as JSON (got ${bytes})`);
    }
    if (depthOf(input.shipping) > SALE_LIMITS.shippingDepth) {
      throw validation(`shipping must nest at most ${SALE_LIMITS.shippingDepth} levels`);
    }
  }
  const total = Buffer.byteLength(
    JSON.stringify([input.customer, input.items, input.shipping ?? null]),
    'utf8',
  );
  if (total > SALE_LIMITS.saleBytes) {
    throw validation(
      `customer, items and shipping must be at most ${SALE_LIMITS.saleBytes} bytes as JSON together (got ${total})`,
    );
  }
}

function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  for (const v of Object.values(value)) deepest = Math.max(deepest, depthOf(v));
  return 1 + deepest;
}
