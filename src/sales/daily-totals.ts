import type { Queryable } from '../platform/db/db.js';

/** One row of the console's daily report: paid sales of a day (America/Sao_Paulo) and method. */
export interface DailyTotal {
  day: string;
  paymentMethod: string;
  salesCount: number;
  tpvCents: number;
  feeCents: number;
  accountId?: number;
}

/**
 * Paid sales per day and method between two days (inclusive), from the totals the sales table's trigger keeps
 * (migration 221): a few rows per day, however many sales. `byAccount` splits them per account too.
 */
export async function dailyTotals(
  q: Queryable,
  f: { from: string; to: string; accountId: number | null; byAccount: boolean },
): Promise<DailyTotal[]> {
  const rows = await q.query<{
    day: string;
    payment_method: string;
    account_id: string | null;
    n: string;
    tpv: string;
    fee: string;
  }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, payment_method,
            ${f.byAccount ? 'account_id' : 'NULL::bigint AS account_id'},
            sum(sales_count) AS n, sum(tpv_cents) AS tpv, sum(fee_cents) AS fee
       FROM sales_daily_totals
      WHERE day BETWEEN $1::date AND $2::date AND ($3::bigint IS NULL OR account_id = $3)
      GROUP BY day, payment_method${f.byAccount ? ', account_id' : ''}
     HAVING sum(sales_count) <> 0
      ORDER BY day, payment_method${f.byAccount ? ', account_id' : ''}`,
    [f.from, f.to, f.accountId],
  );
  return rows.map((r) => ({
    day: r.day,
    paymentMethod: r.payment_method,
    salesCount: Number(r.n),
    tpvCents: Number(r.tpv),
    feeCents: Number(r.fee),
    ...(r.account_id === null ? {} : { accountId: Number(r.account_id) }),
  }));
}

/** An account's newest sales as their Sale JSON texts (the console's account page). */
export async function recentSaleBodies(q: Queryable, accountId: number, limit: number): Promise<string[]> {
  const rows = await q.query<{ body: string }>(
    'SELECT public_json AS body FROM sales WHERE account_id = $1 ORDER BY id DESC LIMIT $2',
    [accountId, limit],
  );
  return rows.map((r) => r.body);
}
