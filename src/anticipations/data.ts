import type { Queryable } from '../platform/db/db.js';
import { rowOrNull } from '../platform/sql/row-or-null.js';

export type AnticipationStatus = 'requested' | 'approved' | 'rejected' | 'paid';

export interface AnticipationRow {
  id: number;
  uuid: string;
  account_id: number;
  status: AnticipationStatus;
  request: Record<string, unknown>;
  monthly_percent_e4: number;
  gross_cents: number;
  fee_cents: number;
  net_cents: number;
  request_hash: string | null;
  reason: string | null;
  decided_by: string | null;
  created_at: Date;
  decided_at: Date | null;
  paid_at: Date | null;
  /** The receivables asked for, by date; null for anticipations made before they were kept. */
  receivables: { date: string; amountCents: number }[] | null;
}

/**
 * A new anticipation, `requested`; with an Idempotency-Key, null when the account already has one with that key
 * (a concurrent request with the key waits here for the first to commit, then finds it). A key is kept 24 h.
 */
export async function insertAnticipation(
  tx: Queryable,
  a: {
    uuid: string;
    accountId: number;
    request: object;
    monthlyPercentE4: number;
    grossCents: number;
    feeCents: number;
    receivables: { date: string; amountCents: number }[];
    key: string | null;
    hash: string | null;
  },
): Promise<AnticipationRow | null> {
  if (a.key !== null) {
    await tx.query(
      `UPDATE anticipations SET idempotency_key = NULL
        WHERE account_id = $1 AND idempotency_key = $2 AND created_at < now() - interval '24 hours'`,
      [a.accountId, a.key],
    );
  }
  return rowOrNull<AnticipationRow>(
    tx,
    `INSERT INTO anticipations (uuid, account_id, status, request, monthly_percent_e4, gross_cents, fee_cents,
                                net_cents, idempotency_key, request_hash, receivables)
     VALUES ($1, $2, 'requested', $3::jsonb, $4, $5, $6, $5::bigint - $6::bigint, $7, $8, $9::jsonb)
     ON CONFLICT (account_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
     RETURNING *`,
    [
      a.uuid,
      a.accountId,
      JSON.stringify(a.request),
      a.monthlyPercentE4,
      a.grossCents,
      a.feeCents,
      a.key,
      a.hash,
      JSON.stringify(a.receivables),
    ],
  );
}

export async function findByKey(
  q: Queryable,
  accountId: number,
  key: string,
): Promise<AnticipationRow | null> {
  return rowOrNull<AnticipationRow>(
    q,
    'SELECT * FROM anticipations WHERE account_id = $1 AND idempotency_key = $2',
    [accountId, key],
  );
}

/** Whose an anticipation is (null for none, or an id that is no uuid): the console audits refusals with it. */
export async function accountOfAnticipation(q: Queryable, uuid: string): Promise<number | null> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(uuid)) return null;
  const row = await rowOrNull<{ account_id: string }>(
    q,
    'SELECT account_id FROM anticipations WHERE uuid = $1',
    [uuid],
  );
  return row ? Number(row.account_id) : null;
}

export async function lockAnticipation(tx: Queryable, uuid: string): Promise<AnticipationRow | null> {
  return rowOrNull<AnticipationRow>(tx, 'SELECT * FROM anticipations WHERE uuid = $1 FOR UPDATE', [uuid]);
}

/** The end of an anticipation: paid, or rejected with its reason. */
export async function closeAnticipation(
  tx: Queryable,
  id: number,
  outcome: { status: 'paid' | 'rejected'; reason: string | null; decidedBy: string },
): Promise<AnticipationRow> {
  const [row] = await tx.query<AnticipationRow>(
    `UPDATE anticipations SET status = $2, reason = $3, decided_by = $4, decided_at = now(),
            paid_at = CASE WHEN $2 = 'paid' THEN now() END
      WHERE id = $1 RETURNING *`,
    [id, outcome.status, outcome.reason, outcome.decidedBy],
  );
  return row!;
}

/** Newest first: an account's (or, with accountId null, every account's of a status), older than `before`. */
export async function listAnticipations(
  q: Queryable,
  f: { accountId: number | null; status: AnticipationStatus | null; before: number | null; limit: number },
): Promise<AnticipationRow[]> {
  return q.query<AnticipationRow>(
    `SELECT * FROM anticipations
      WHERE ($1::bigint IS NULL OR account_id = $1) AND ($2::text IS NULL OR status = $2)
        AND ($3::bigint IS NULL OR id < $3)
      ORDER BY id DESC LIMIT $4`,
    [f.accountId, f.status, f.before, f.limit],
  );
}
