import { CheckoutInputError } from './errors.js';

/** A merchant's return address (successUrl, cancelUrl): an absolute http or https URL of at most 2048 characters. */
export function returnUrl(raw: string | undefined | null, field: string): string | null {
  if (raw === undefined || raw === null) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CheckoutInputError(`${field} must be an absolute http or https URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new CheckoutInputError(`${field} must be an absolute http or https URL`);
  }
  if (url.username || url.password) throw new CheckoutInputError(`${field} must not carry credentials`);
  return raw;
}

/** Where a paid session sends its payer: successUrl with session_id=<id> added to its query. */
export function successRedirect(successUrl: string, sessionId: string): string {
  const url = new URL(successUrl);
  url.searchParams.set('session_id', sessionId);
  return url.toString();
}
