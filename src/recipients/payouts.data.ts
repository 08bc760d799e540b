import type { Queryable } from '../platform/db/db.js';
import type { RecipientRow } from './data.js';

/** A recipient whose automatic payout period is due and not yet claimed. */
export type PayoutCandidate = Pick<
  RecipientRow,
  'id' | 'uuid' | 'account_id' | 'pix_key' | 'pix_key_type' | 'transfer_interval'
> & { period: string };

/** Up to `limit` recipients paid automatically (ids above `after`) whose due period has no record yet. */
export async function duePayoutRecipients(
  q: Queryable,
  periods: { daily: string; weekly: string },
  after: number,
  limit: number,
): Promise<PayoutCandidate[]> {
  const rows = await q.query<PayoutCandidate>(
    `SELECT r.id, r.uuid, r.account_id, r.pix_key, r.pix_key_type, r.transfer_interval,
            to_char(d.period, 'YYYY-MM-DD') AS period
       FROM recipients r
      CROSS JOIN LATERAL (SELECT CASE r.transfer_interval WHEN 'daily' THEN $1::date ELSE $2::date END AS period) d
      WHERE r.transfer_interval <> 'manual' AND r.id > $4
        AND NOT EXISTS (SELECT 1 FROM recipient_payouts p WHERE p.recipient_id = r.id AND p.period_date = d.period)
      ORDER BY r.id LIMIT $3`,
    [periods.daily, periods.weekly, limit, after],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id), account_id: Number(r.account_id) }));
}

/**
 * Takes the recipient's period: true for the one transaction that records it. A concurrent claimer waits for
 * that transaction and then finds the row (false); if it rolled back, the period is free again.
 */
export async function claimPayoutPeriod(q: Queryable, recipientId: number, period: string): Promise<boolean> {
  const rows = await q.query(
    `INSERT INTO recipient_payouts (recipient_id, period_date) VALUES ($1, $2::date)
     ON CONFLICT DO NOTHING RETURNING 1`,
    [recipientId, period],
  );
  return rows.length === 1;
}

/** What the claimed period became: its withdrawal, or why it paid nothing. */
export async function notePayoutPeriod(
  q: Queryable,
  recipientId: number,
  period: string,
  outcome: { withdrawalId: number } | { skipped: string },
): Promise<void> {
  await q.query(
    `UPDATE recipient_payouts SET withdrawal_id = $3, skipped_reason = $4
      WHERE recipient_id = $1 AND period_date = $2::date`,
    [
      recipientId,
      period,
      'withdrawalId' in outcome ? outcome.withdrawalId : null,
      'skipped' in outcome ? outcome.skipped : null,
    ],
  );
}

/** What a recipient's latest automatic payout period became: a withdrawal, or why it paid nothing. */
export interface LastAutomaticPayout {
  period: string;
  paid: boolean;
  skippedReason: string | null;
}

/** The latest automatic payout period of each of these recipients that has one. */
export async function lastPayoutPeriods(
  q: Queryable,
  recipientIds: number[],
): Promise<Map<number, LastAutomaticPayout>> {
  if (recipientIds.length === 0) return new Map();
  const rows = await q.query<LastAutomaticPayout & { recipient_id: string }>(
    `SELECT DISTINCT ON (recipient_id) recipient_id, to_char(period_date, 'YYYY-MM-DD') AS period,
            withdrawal_id IS NOT NULL AS paid, skipped_reason AS "skippedReason"
       FROM recipient_payouts WHERE recipient_id = ANY($1::bigint[])
      ORDER BY recipient_id, period_date DESC`,
    [recipientIds],
  );
  return new Map(rows.map(({ recipient_id, ...last }) => [Number(recipient_id), last]));
}
