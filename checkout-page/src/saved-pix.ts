import type { PageData, PixPayment } from './api';

/**
 * The Pix this tab opened, kept in the tab's sessionStorage: a reload shows the same code and keeps waiting
 * for its payment, instead of asking again and opening a second charge.
 */
const keyOf = (page: PageData) =>
  page.kind === 'link' ? `checkout:link:${page.slug}` : `checkout:session:${page.session.id}`;

export function savedPix(page: PageData): PixPayment | null {
  try {
    const saved = JSON.parse(sessionStorage.getItem(keyOf(page)) ?? 'null') as PixPayment | null;
    if (!saved || (saved.expiresAt && Date.parse(saved.expiresAt) <= Date.now())) return null;
    return saved;
  } catch {
    return null;
  }
}

export function savePix(page: PageData, payment: PixPayment | null): void {
  try {
    if (payment) sessionStorage.setItem(keyOf(page), JSON.stringify(payment));
    else sessionStorage.removeItem(keyOf(page));
  } catch {
    // storage refused (private mode, full): a reload asks again, as without it
  }
}
