import { type Actor, recordAudit } from '../../audit/index.js';
import type { Db, Queryable } from '../../platform/db/db.js';

/** The gross amount (cents) from which an account's withdrawals wait for approval; null: none do. */
export async function approvalThreshold(q: Queryable, accountId: number): Promise<number | null> {
  const [row] = await q.query<{ threshold_cents: string }>(
    'SELECT threshold_cents FROM withdrawal_approval_rules WHERE account_id = $1',
    [accountId],
  );
  return row ? Number(row.threshold_cents) : null;
}

export async function setApprovalThreshold(
  db: Db,
  accountId: number,
  thresholdCents: number | null,
  actor: Actor,
): Promise<number | null> {
  await db.tx(async (tx) => {
    if (thresholdCents === null) {
      await tx.query('DELETE FROM withdrawal_approval_rules WHERE account_id = $1', [accountId]);
    } else {
      await tx.query(
        `INSERT INTO withdrawal_approval_rules (account_id, threshold_cents) VALUES ($1, $2)
         ON CONFLICT (account_id) DO UPDATE SET threshold_cents = EXCLUDED.threshold_cents, updated_at = now()`,
        [accountId, thresholdCents],
      );
    }
    await recordAudit(tx, accountId, actor, { action: 'approval_rule.updated', target: null });
  });
  return thresholdCents;
}
