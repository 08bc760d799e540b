import type { Queryable } from '../platform/db/db.js';
import { receivablesPeriod } from './receivables.js';

/** One card installment of a recipient's share still to reach its available balance. */
export interface RecipientReceivable {
  date: string;
  amountCents: number;
  saleId: string;
  installment: number;
}

/**
 * A recipient's card installments not yet settled (and not taken whole by a refund), due from `from` to `to` (São Paulo dates; from today and 90
 * days on by default, at most 366 days apart), by due date, and their sum. With the default period the sum is
 * the recipient's `receivable` balance (installments fall due at 00:00 and are settled then).
 */
export async function recipientReceivables(
  q: Queryable,
  recipientId: number,
  query: { from?: string; to?: string },
): Promise<{ data: RecipientReceivable[]; totalCents: number }> {
  const period = receivablesPeriod(query.from, query.to);
  const rows = await q.query<{ date: string; amount: number; sale_uuid: string; installment: number }>(
    `SELECT to_char(due_date, 'YYYY-MM-DD') AS date, amount, sale_uuid, installment
       FROM receivables
      WHERE recipient_id = $1 AND settled_at IS NULL AND amount > 0
        AND due_date BETWEEN $2::date AND $3::date
      ORDER BY due_date, id`,
    [recipientId, period.from, period.to],
  );
  const data = rows.map((r) => ({
    date: r.date,
    amountCents: Number(r.amount),
    saleId: r.sale_uuid,
    installment: Number(r.installment),
  }));
  return { data, totalCents: data.reduce((s, r) => s + r.amountCents, 0) };
}
