import { hasValidCrc } from '../payment-standards/index.js';
import { parseReais } from '../platform/money/money.js';

/**
 * The top-level fields of an EMV BR Code (ID, two-digit length, value, …), or null when it is not one: a
 * valid CRC16 in the last field (63), every field well formed and present once, payload format 01 first,
 * a merchant account (26–51) of the GUI br.gov.bcb.pix, currency 986 and country BR.
 */
export function brCodeFields(code: string): Map<string, string> | null {
  if (typeof code !== 'string' || code.length > 512 || !hasValidCrc(code)) return null;
  for (let i = 0; i < code.length; i++) {
    const c = code.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return null; // control characters
  }
  const fields = new Map<string, string>();
  let at = 0;
  while (at < code.length) {
    const head = code.slice(at, at + 4);
    if (!/^\d{4}$/.test(head)) return null;
    const [id, length] = [head.slice(0, 2), Number(head.slice(2))];
    const value = code.slice(at + 4, at + 4 + length);
    if (value.length !== length || fields.has(id)) return null;
    fields.set(id, value);
    at += 4 + length;
  }
  const accounts = [...fields].filter(([id]) => Number(id) >= 26 && Number(id) <= 51).map(([, v]) => v);
  const ok =
    code.startsWith('000201') &&
    code.endsWith(`6304${fields.get('63')}`) &&
    accounts.some((a) => a.toLowerCase().includes('br.gov.bcb.pix')) &&
    fields.get('53') === '986' &&
    fields.get('58') === 'BR';
  return ok ? fields : null;
}

/** A PSP's `pixCopiaECola` we may show the buyer: a valid BR Code whose amount, if it has one, is ours. */
export function isPixCopiaECola(code: unknown, amountCents: number): code is string {
  const fields = typeof code === 'string' ? brCodeFields(code) : null;
  if (!fields) return false;
  const amount = fields.get('54');
  return amount === undefined || parseReais(amount) === amountCents;
}

/**
 * A `location` we may put in a BR Code's field 25: URL characters only, short enough for the merchant account
 * field (99 characters with the GUI), with or without its scheme.
 */
export function isLocation(location: unknown): location is string {
  if (typeof location !== 'string') return false;
  const bare = location.replace(/^https?:\/\//, '');
  return bare.length > 0 && bare.length <= 77 && /^[A-Za-z0-9._~:/?#@!$&'()*+,;=%-]+$/.test(bare);
}
