import type { Queryable } from '../platform/db/db.js';

export type DiscrepancyKind =
  | 'unknown_charge'
  | 'amount_mismatch'
  | 'missing_at_psp'
  | 'duplicate_payment'
  | 'closed_charge_paid';

/** Payments recorded when they arrive (not by a run), which the payer is owed back: returned in full, resolved. */
const OWED_BACK: DiscrepancyKind[] = ['duplicate_payment', 'closed_charge_paid'];

const COLUMNS = `id, kind, e2eid, txid, amount, detail,
  to_char(found_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "foundAt",
  to_char(resolved_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "resolvedAt", resolution,
  resolved_by AS "resolvedBy"`;
const stored = (r: StoredDiscrepancy): StoredDiscrepancy => ({
  ...r,
  id: Number(r.id),
  amount: Number(r.amount),
});

/** A disagreement between the PSP and the gateway, as `gateway reconcile` prints it (amount in cents). */
export interface Discrepancy {
  kind: DiscrepancyKind;
  e2eid: string;
  txid: string | null;
  amount: number;
  detail: string;
}

export interface StoredDiscrepancy extends Discrepancy {
  id: number;
  foundAt: string;
  resolvedAt: string | null;
  /** How it was resolved: by the gateway, or an operator's note. */
  resolution: string | null;
  /** Who resolved it by hand: an operator's e-mail, or 'cli'; null when the gateway did (or open). */
  resolvedBy: string | null;
}

/**
 * Records what a run found: once per (kind, Pix), however many windows see it; a repeat only names this run as
 * the latest to find it. The metric counts them from the table (metrics.ts).
 */
export async function recordDiscrepancies(db: Queryable, runId: number, found: Discrepancy[]): Promise<void> {
  if (found.length === 0) return;
  await db.query(
    `INSERT INTO reconciliation_discrepancies (kind, e2eid, txid, amount, detail, last_run_id)
     SELECT k, e, t, a, d, $6::bigint
       FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[]) AS u(k, e, t, a, d)
     ON CONFLICT (kind, e2eid) DO UPDATE SET last_run_id = EXCLUDED.last_run_id`,
    [
      found.map((d) => d.kind),
      found.map((d) => d.e2eid),
      found.map((d) => d.txid),
      found.map((d) => d.amount),
      found.map((d) => d.detail),
      runId,
    ],
  );
}

/**
 * Payments found outside a reconciliation run (a boleto's second payment, a payment of a charge no longer
 * payable, a CNAB liquidação credited nothing): recorded once per (kind, `e2eid`: the payment's own reference),
 * like a run's discrepancies, in one statement.
 */
export async function recordPaymentDiscrepancies(db: Queryable, found: Discrepancy[]): Promise<void> {
  if (found.length === 0) return;
  await db.query(
    `INSERT INTO reconciliation_discrepancies (kind, e2eid, txid, amount, detail)
     SELECT k, e, t, a, d
       FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[]) AS u(k, e, t, a, d)
     ON CONFLICT (kind, e2eid) DO NOTHING`,
    [
      found.map((d) => d.kind),
      found.map((d) => d.e2eid),
      found.map((d) => d.txid),
      found.map((d) => d.amount),
      found.map((d) => d.detail),
    ],
  );
}

/** Which of these Pix are recorded as payments owed back (a second payment, a closed charge's): no other discrepancy. */
export async function owedBackAmong(db: Queryable, e2eids: string[]): Promise<Set<string>> {
  const rows = await db.query<{ e2eid: string }>(
    `SELECT e2eid FROM reconciliation_discrepancies WHERE kind = ANY($2::text[]) AND e2eid = ANY($1::text[])`,
    [e2eids, OWED_BACK],
  );
  return new Set(rows.map((r) => r.e2eid));
}

/** Pix once missing at the PSP that it lists now: no longer a discrepancy. */
export async function resolveListed(db: Queryable, e2eids: string[]): Promise<void> {
  await db.query(
    `UPDATE reconciliation_discrepancies SET resolved_at = now(), resolution = 'listed by the PSP later'
      WHERE kind = 'missing_at_psp' AND e2eid = ANY($1::text[]) AND resolved_at IS NULL`,
    [e2eids],
  );
}

/** A payment owed back that the PSP lists as returned in full to its payer: the payer is owed nothing more. */
export async function resolveReturned(db: Queryable, e2eid: string): Promise<boolean> {
  const rows = await db.query(
    `UPDATE reconciliation_discrepancies
        SET resolved_at = now(), resolution = 'returned to the payer (devolução DEVOLVIDO at the PSP)'
      WHERE kind = ANY($2::text[]) AND e2eid = $1 AND resolved_at IS NULL RETURNING 1`,
    [e2eid, OWED_BACK],
  );
  return rows.length > 0;
}

/** An operator's resolution of an open discrepancy, with their note; null when there is no such open one. */
export async function resolveByOperator(
  db: Queryable,
  id: number,
  note: string,
  by: string,
): Promise<StoredDiscrepancy | null> {
  const [row] = await db.query<StoredDiscrepancy>(
    `UPDATE reconciliation_discrepancies SET resolved_at = now(), resolution = $2, resolved_by = $3
      WHERE id = $1 AND resolved_at IS NULL RETURNING ${COLUMNS}`,
    [id, `operator: ${note}`, by],
  );
  return row ? stored(row) : null;
}

/** One discrepancy kept, resolved or not; null when there is none with that id. */
export async function discrepancyById(db: Queryable, id: number): Promise<StoredDiscrepancy | null> {
  const [row] = await db.query<StoredDiscrepancy>(
    `SELECT ${COLUMNS} FROM reconciliation_discrepancies WHERE id = $1`,
    [id],
  );
  return row ? stored(row) : null;
}

/** How many of what a run found were found first since `since` (new, not seen by an earlier run). */
export async function foundSince(db: Queryable, runId: number, since: Date): Promise<number> {
  const [row] = await db.query<{ count: number }>(
    'SELECT count(*)::int AS count FROM reconciliation_discrepancies WHERE last_run_id = $1 AND found_at >= $2',
    [runId, since],
  );
  return row!.count;
}

/** What one run found (new, or seen again), in the order found. */
export async function discrepanciesOfRun(db: Queryable, runId: number): Promise<Discrepancy[]> {
  const rows = await db.query<StoredDiscrepancy>(
    `SELECT ${COLUMNS} FROM reconciliation_discrepancies WHERE last_run_id = $1 ORDER BY id`,
    [runId],
  );
  return rows.map(({ kind, e2eid, txid, amount, detail }) => ({
    kind,
    e2eid,
    txid,
    amount: Number(amount),
    detail,
  }));
}

/** Every discrepancy kept, newest first (unresolved only unless `all`). */
export async function listDiscrepancies(
  db: Queryable,
  options: { all?: boolean; limit?: number } = {},
): Promise<StoredDiscrepancy[]> {
  const rows = await db.query<StoredDiscrepancy>(
    `SELECT ${COLUMNS} FROM reconciliation_discrepancies
      WHERE $1 OR resolved_at IS NULL ORDER BY found_at DESC, id DESC LIMIT $2`,
    [options.all ?? false, options.limit ?? 1000],
  );
  return rows.map(stored);
}
