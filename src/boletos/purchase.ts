import type { SaleItem } from '../sales/index.js';

/** The most a boleto's "Referente a" line takes (the instructions' width at 9 pt, on one line). */
const MAX_PURCHASE = 95;

/**
 * What was bought, as a boleto's instructions print it: "2 × Camiseta, Curso online", cut with "…" past one
 * line; null when there are no items.
 */
export function purchaseOf(items: readonly Pick<SaleItem, 'title' | 'quantity'>[]): string | null {
  if (items.length === 0) return null;
  const text = items.map((i) => `${i.quantity > 1 ? `${i.quantity} × ` : ''}${i.title.trim()}`).join(', ');
  return [...text].length > MAX_PURCHASE ? `${[...text].slice(0, MAX_PURCHASE - 1).join('')}…` : text;
}
