import type { PageData, Payment } from './api';

/**
 * The payment this tab started, kept in the tab's sessionStorage: a reload shows the same Pix or boleto and
 * keeps waiting for it, instead of asking again and opening a second charge.
 */
const keyOf = (page: PageData) =>
  page.kind === 'link' ? `checkout:link:${page.slug}` : `checkout:session:${page.session.id}`;

export function savedPayment(page: PageData): Payment | null {
  try {
    const saved = JSON.parse(sessionStorage.getItem(keyOf(page)) ?? 'null') as Payment | null;
    if (!saved) return null;
    if (saved.method === 'PIX' && saved.expiresAt && Date.parse(saved.expiresAt) <= Date.now()) return null;
    return saved;
  } catch {
    return null;
  }
}

export function savePayment(page: PageData, payment: Payment | null): void {
  try {
    if (payment) sessionStorage.setItem(keyOf(page), JSON.stringify(payment));
    else sessionStorage.removeItem(keyOf(page));
  } catch {
    // storage refused (private mode, full): a reload asks again, as without it
  }
}

/**
 * The token the server gave this browser's payer of this page (kept in localStorage): sent back with the next
 * Pix, it is shown the charge already open for this payer. Another payer's browser has none, and gets its own.
 */
const tokenKeyOf = (page: PageData) => `${keyOf(page)}:payer`;

export function payerToken(page: PageData): string | undefined {
  try {
    return localStorage.getItem(tokenKeyOf(page)) ?? undefined;
  } catch {
    return undefined;
  }
}

export function savePayerToken(page: PageData, token: string): void {
  try {
    localStorage.setItem(tokenKeyOf(page), token);
  } catch {
    // storage refused: the next Pix of this page is a new charge, as for a new payer
  }
}
