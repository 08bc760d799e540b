import type { Queryable } from '../platform/db/db.js';

/** The company's revenue of a day (America/Sao_Paulo), by what earned it: what its fee account received. */
export interface RevenueDay {
  day: string;
  salesCents: number;
  withdrawalsCents: number;
  anticipationsCents: number;
  /** The fees refunds gave back (zero or negative). */
  refundsCents: number;
  totalCents: number;
}

/**
 * Revenue per day between two days (inclusive), read from the ledger: the postings to `system:fees` (a sale's fee
 * when it is paid, a withdrawal's when it completes, an anticipation's when it is paid; less the part of a fee a
 * refund made gives back), by the São Paulo day of their entry. Its `salesCents` is the console report's fees of the same days, to the cent.
 */
export async function revenueByDay(q: Queryable, from: string, to: string): Promise<RevenueDay[]> {
  const rows = await q.query<Record<string, string>>(
    `SELECT to_char((e.created_at AT TIME ZONE 'America/Sao_Paulo')::date, 'YYYY-MM-DD') AS day,
            COALESCE(sum(p.amount) FILTER (WHERE e.kind = 'sale.paid'), 0) AS sales,
            COALESCE(sum(p.amount) FILTER (WHERE e.kind LIKE 'withdrawal.%'), 0) AS withdrawals,
            COALESCE(sum(p.amount) FILTER (WHERE e.kind = 'anticipation.paid'), 0) AS anticipations,
            COALESCE(sum(p.amount) FILTER (WHERE e.kind = 'sale.fee_returned'), 0) AS refunds,
            sum(p.amount) AS total
       FROM postings p
       JOIN ledger_accounts la ON la.id = p.ledger_account_id AND la.code = 'system:fees'
       JOIN journal_entries e ON e.id = p.entry_id
      WHERE e.created_at >= $1::date::timestamp AT TIME ZONE 'America/Sao_Paulo'
        AND e.created_at < ($2::date + 1)::timestamp AT TIME ZONE 'America/Sao_Paulo'
      GROUP BY 1 ORDER BY 1`,
    [from, to],
  );
  return rows.map((r) => ({
    day: r.day!,
    salesCents: Number(r.sales),
    withdrawalsCents: Number(r.withdrawals),
    anticipationsCents: Number(r.anticipations),
    refundsCents: Number(r.refunds),
    totalCents: Number(r.total),
  }));
}
