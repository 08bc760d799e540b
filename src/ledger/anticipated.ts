import type { Queryable } from '../platform/db/db.js';
import { postEntry } from './ledger.js';

/** An installment an anticipation may take: not settled, not held by another, due after today (São Paulo). */
export interface OpenInstallment {
  id: number;
  saleId: number;
  date: string;
  amount: number;
}

const TODAY = "(now() AT TIME ZONE 'America/Sao_Paulo')::date";

/** The account's installments still to come and free, by date (the earliest first), up to `upTo` if given. */
export async function openInstallments(
  q: Queryable,
  accountId: number,
  upTo: string | null,
): Promise<OpenInstallment[]> {
  const rows = await q.query<{ id: string; sale_id: string; date: string; amount: string }>(
    `SELECT id, sale_id, to_char(due_date, 'YYYY-MM-DD') AS date, amount FROM receivables
      WHERE account_id = $1 AND settled_at IS NULL AND anticipation_id IS NULL AND due_date > ${TODAY}
        AND ($2::date IS NULL OR due_date <= $2::date)
      ORDER BY due_date, id`,
    [accountId, upTo],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    saleId: Number(r.sale_id),
    date: r.date,
    amount: Number(r.amount),
  }));
}

/**
 * Holds these installments for an anticipation: true if every one was still free and unsettled. One held by a
 * concurrent anticipation makes this wait for it, then find the installment taken (false): the caller's
 * transaction is refused and rolls back, and no installment is anticipated twice.
 */
export async function holdInstallments(
  tx: Queryable,
  ids: number[],
  anticipationId: number,
): Promise<boolean> {
  const rows = await tx.query(
    `UPDATE receivables SET anticipation_id = $2
      WHERE id = ANY($1::bigint[]) AND settled_at IS NULL AND anticipation_id IS NULL RETURNING id`,
    [ids, anticipationId],
  );
  return rows.length === ids.length;
}

/** The sales whose installments an anticipation holds or took (read without a lock: to lock them first). */
export async function salesOfAnticipation(q: Queryable, anticipationId: number): Promise<number[]> {
  const rows = await q.query<{ sale_id: string }>(
    'SELECT DISTINCT sale_id FROM receivables WHERE anticipation_id = $1',
    [anticipationId],
  );
  return rows.map((r) => Number(r.sale_id));
}

/** The installments an anticipation holds or took, locked until the caller's transaction ends. */
export async function lockHeldInstallments(
  tx: Queryable,
  anticipationId: number,
): Promise<(OpenInstallment & { settled: boolean })[]> {
  const rows = await tx.query<{
    id: string;
    sale_id: string;
    date: string;
    amount: string;
    settled: boolean;
  }>(
    `SELECT id, sale_id, to_char(due_date, 'YYYY-MM-DD') AS date, amount, settled_at IS NOT NULL AS settled
       FROM receivables WHERE anticipation_id = $1 ORDER BY due_date, id FOR UPDATE`,
    [anticipationId],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    saleId: Number(r.sale_id),
    date: r.date,
    amount: Number(r.amount),
    settled: r.settled,
  }));
}

/** An anticipation refused: its installments are free again (those not settled reach available on their dates). */
export async function releaseInstallments(tx: Queryable, anticipationId: number): Promise<void> {
  await tx.query('UPDATE receivables SET anticipation_id = NULL WHERE anticipation_id = $1', [
    anticipationId,
  ]);
}

/**
 * An anticipation paid, in the caller's transaction: its installments (locked by lockHeldInstallments, none
 * settled) are settled now, and one entry `anticipation.paid` moves their sum out of the receivable bucket, the
 * net into available and the fee to the company's revenue (`system:fees`).
 */
export async function settleAnticipated(
  tx: Queryable,
  a: { anticipationId: number; accountId: number; grossCents: number; feeCents: number },
): Promise<void> {
  await tx.query(
    'UPDATE receivables SET settled_at = now() WHERE anticipation_id = $1 AND settled_at IS NULL',
    [a.anticipationId],
  );
  await postEntry(tx, {
    kind: 'anticipation.paid',
    refType: 'anticipation',
    refId: a.anticipationId,
    postings: [
      { target: { accountId: a.accountId, bucket: 'receivable' }, amount: -a.grossCents },
      { target: { accountId: a.accountId, bucket: 'available' }, amount: a.grossCents - a.feeCents },
      { target: { system: 'fees' }, amount: a.feeCents },
    ],
  });
}

/** The installments of these anticipations (date and amount), for their views. */
export async function installmentsOf(
  q: Queryable,
  anticipationIds: number[],
): Promise<Map<number, { date: string; amountCents: number }[]>> {
  const out = new Map<number, { date: string; amountCents: number }[]>();
  if (anticipationIds.length === 0) return out;
  const rows = await q.query<{ anticipation_id: string; date: string; amount: string }>(
    `SELECT anticipation_id, to_char(due_date, 'YYYY-MM-DD') AS date, sum(amount) AS amount FROM receivables
      WHERE anticipation_id = ANY($1::bigint[]) GROUP BY anticipation_id, due_date ORDER BY due_date`,
    [anticipationIds],
  );
  for (const r of rows) {
    const id = Number(r.anticipation_id);
    out.set(id, [...(out.get(id) ?? []), { date: r.date, amountCents: Number(r.amount) }]);
  }
  return out;
}

/** `ledger verify`: each paid anticipation's entry took from receivable exactly the installments it holds. */
export async function anticipationMismatches(
  q: Queryable,
): Promise<{ anticipation_id: number; taken: number; installments: number }[]> {
  return q.query(
    `SELECT e.ref_id AS anticipation_id, -sum(p.amount)::bigint AS taken,
            COALESCE((SELECT sum(r.amount) FROM receivables r WHERE r.anticipation_id = e.ref_id
                         AND r.settled_at IS NOT NULL), 0)::bigint AS installments
       FROM journal_entries e
       JOIN postings p ON p.entry_id = e.id
       JOIN ledger_accounts la ON la.id = p.ledger_account_id AND la.bucket = 'receivable'
      WHERE e.kind = 'anticipation.paid'
      GROUP BY e.ref_id
     HAVING -sum(p.amount) <> COALESCE((SELECT sum(r.amount) FROM receivables r
                                         WHERE r.anticipation_id = e.ref_id AND r.settled_at IS NOT NULL), 0)
      ORDER BY e.ref_id`,
  );
}
