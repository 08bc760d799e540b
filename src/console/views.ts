import { accountNames } from '../accounts/index.js';
import type { RevenueDay } from '../ledger/index.js';
import type { Queryable } from '../platform/db/db.js';
import { formatReais } from '../platform/money/money.js';
import type { DailyTotal } from '../sales/index.js';
import type { WithdrawalRow } from '../withdrawals/index.js';

export function opsWithdrawalView(w: WithdrawalRow) {
  return {
    id: Number(w.id),
    uuid: w.uuid,
    accountId: Number(w.account_id),
    amount: formatReais(Number(w.amount)),
    netAmount: formatReais(Number(w.net_amount)),
    pixKey: w.pix_key,
    pixKeyType: w.pix_key_type,
    status: w.status,
    createdAt: w.created_at.toISOString(),
    updatedAt: w.updated_at.toISOString(),
  };
}

/** Fees over TPV in per cent, two decimals ("0.00" with no TPV). */
export function takeRate(feeCents: number, tpvCents: number): string {
  if (tpvCents <= 0) return '0.00';
  return ((feeCents * 100) / tpvCents).toFixed(2);
}

export interface ReportRowView extends DailyTotal {
  accountName?: string;
  takeRatePercent: string;
}

/** The period's revenue by source, its days added up; null when the report is of one account. */
export function revenueView(days: RevenueDay[] | null) {
  if (days === null) return null;
  const sum = (pick: (d: RevenueDay) => number) => days.reduce((t, d) => t + pick(d), 0);
  return {
    salesCents: sum((d) => d.salesCents),
    withdrawalsCents: sum((d) => d.withdrawalsCents),
    anticipationsCents: sum((d) => d.anticipationsCents),
    refundsCents: sum((d) => d.refundsCents),
    totalCents: sum((d) => d.totalCents),
  };
}

export function reportView(
  from: string,
  to: string,
  rows: DailyTotal[],
  names: Map<number, string>,
  revenue: RevenueDay[] | null,
) {
  const totals = rows.reduce(
    (t, r) => ({
      salesCount: t.salesCount + r.salesCount,
      tpvCents: t.tpvCents + r.tpvCents,
      feeCents: t.feeCents + r.feeCents,
    }),
    { salesCount: 0, tpvCents: 0, feeCents: 0 },
  );
  return {
    from,
    to,
    rows: rows.map(
      (r): ReportRowView => ({
        ...r,
        ...(r.accountId !== undefined ? { accountName: names.get(r.accountId) ?? '' } : {}),
        takeRatePercent: takeRate(r.feeCents, r.tpvCents),
      }),
    ),
    totals: { ...totals, takeRatePercent: takeRate(totals.feeCents, totals.tpvCents) },
    revenue: revenueView(revenue),
  };
}

/** A list's rows with their account's name beside its id, so the console names accounts as people know them. */
export async function withAccountNames<T extends { accountId: number | null }>(
  q: Queryable,
  rows: T[],
): Promise<(T & { accountName?: string })[]> {
  const ids = [...new Set(rows.flatMap((r) => (r.accountId === null ? [] : [r.accountId])))];
  const names = await accountNames(q, ids);
  return rows.map((r) => {
    const name = r.accountId === null ? undefined : names.get(r.accountId);
    return name === undefined ? r : { ...r, accountName: name };
  });
}
