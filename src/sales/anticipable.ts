import type { Queryable } from '../platform/db/db.js';

/**
 * Of these sales, those whose card installments may still be anticipated: paid (PAGO), nothing refunded and
 * no refund in progress, no dispute. With `lock`, the sales are held (FOR SHARE) until the caller's
 * transaction ends, so a refund or a dispute of one waits for the anticipation that pays its installments
 * (and an anticipation waits for a refund under way, then finds the sale refunded).
 */
export async function anticipableSales(q: Queryable, saleIds: number[], lock: boolean): Promise<Set<number>> {
  if (saleIds.length === 0) return new Set();
  const rows = await q.query<{ id: string; ok: boolean }>(
    `SELECT id, (status = 'PAGO' AND refunded_amount = 0 AND refund_pending_net = 0) AS ok
       FROM sales WHERE id = ANY($1::bigint[]) ORDER BY id ${lock ? 'FOR SHARE' : ''}`,
    [[...new Set(saleIds)]],
  );
  return new Set(rows.filter((r) => r.ok).map((r) => Number(r.id)));
}
