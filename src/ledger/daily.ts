import type { Queryable } from '../platform/db/db.js';
import { bucketsOf, firstEntryAtOrAfter } from './statement.js';

export interface DayTotals {
  /** São Paulo calendar day, YYYY-MM-DD. */
  date: string;
  /** What paid sales credited to the account that day (cents, after fees). */
  salesPaidCents: number;
  /** What completed withdrawals took from the account that day (cents, fees included). */
  withdrawalsCents: number;
}

/**
 * The last `days` São Paulo days of paid sales and completed withdrawals, from the ledger (the entries since the
 * first day's start, walked on the (ledger_account_id, entry_id) index), every day listed, oldest first.
 */
export async function dailyTotals(db: Queryable, accountId: number, days: number): Promise<DayTotals[]> {
  const [{ start, dates }] = (await db.query<{ start: string; dates: string[] }>(
    `SELECT ((now() AT TIME ZONE 'America/Sao_Paulo')::date - ($1::int - 1)) AT TIME ZONE 'America/Sao_Paulo' AS start,
            array(SELECT to_char(d, 'YYYY-MM-DD') FROM generate_series(
              (now() AT TIME ZONE 'America/Sao_Paulo')::date - ($1::int - 1),
              (now() AT TIME ZONE 'America/Sao_Paulo')::date, interval '1 day') d) AS dates`,
    [days],
  )) as [{ start: string; dates: string[] }];
  const byDate = new Map(dates.map((date) => [date, { date, salesPaidCents: 0, withdrawalsCents: 0 }]));
  const buckets = await bucketsOf(db, accountId);
  if (!buckets) return [...byDate.values()];
  const lower = await firstEntryAtOrAfter(db, new Date(start).toISOString());
  const rows = await db.query<{ date: string; kind: string; amount: string }>(
    `SELECT to_char(e.created_at AT TIME ZONE 'America/Sao_Paulo', 'YYYY-MM-DD') AS date, e.kind,
            sum(p.amount)::bigint AS amount
       FROM postings p JOIN journal_entries e ON e.id = p.entry_id
      WHERE p.ledger_account_id IN ($1, $2) AND p.entry_id >= $3
        AND e.kind IN ('sale.paid', 'withdrawal.complete')
      GROUP BY 1, 2`,
    [buckets.available.id, buckets.blocked.id, lower],
  );
  for (const r of rows) {
    const day = byDate.get(r.date);
    if (!day) continue;
    if (r.kind === 'sale.paid') day.salesPaidCents += Number(r.amount);
    else day.withdrawalsCents -= Number(r.amount);
  }
  return [...byDate.values()];
}
