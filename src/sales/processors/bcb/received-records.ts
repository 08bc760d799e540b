import type { Queryable } from '../../../platform/db/db.js';
import { BCB_PROCESSOR } from './txid.js';

/** What the gateway recorded of a Pix the PSP lists (by end-to-end id). */
export interface PixRecord {
  credited: boolean;
  saleId: number | null;
}

/** A bcb charge, by its txid. */
export interface ChargeRecord {
  id: number;
  amount: number;
  status: string;
  paymentMethod: string;
}

/**
 * The gateway's side of one page of the PSP's received Pix, in two reads whatever the page's size: the Pix it
 * recorded (by end-to-end id) and the charges their txids name.
 */
export async function recordsOfPage(
  db: Queryable,
  e2eids: string[],
  txids: string[],
): Promise<{ pix: Map<string, PixRecord>; charges: Map<string, ChargeRecord> }> {
  const [pixRows, chargeRows] = await Promise.all([
    db.query<{ e2eid: string; credited: boolean; sale_id: number | null }>(
      'SELECT e2eid, credited, sale_id FROM bcb_received_pix WHERE e2eid = ANY($1::text[])',
      [e2eids],
    ),
    db.query<{ txid: string; id: number; amount: number; status: string; payment_method: string }>(
      `SELECT external_transaction_id AS txid, id, amount, status, payment_method FROM sales
        WHERE processor = $1 AND external_transaction_id = ANY($2::text[])`,
      [BCB_PROCESSOR, txids],
    ),
  ]);
  return {
    pix: new Map(pixRows.map((r) => [r.e2eid, { credited: r.credited, saleId: r.sale_id }])),
    charges: new Map(
      chargeRows.map((r) => [
        r.txid,
        { id: Number(r.id), amount: Number(r.amount), status: r.status, paymentMethod: r.payment_method },
      ]),
    ),
  };
}

export interface CreditedPix {
  e2eid: string;
  txid: string | null;
  amount: number;
  paidAt: Date;
}

/**
 * Pix the gateway credited that were paid in [from, to) by the PSP's clock, in (paid_at, e2eid) order, `limit`
 * after `after`: the whole window is read a batch at a time.
 */
export async function creditedPaidBetween(
  db: Queryable,
  from: Date,
  to: Date,
  after: { paidAt: Date; e2eid: string } | null,
  limit: number,
): Promise<CreditedPix[]> {
  const rows = await db.query<{ e2eid: string; txid: string | null; amount: number; paid_at: Date }>(
    `SELECT e2eid, txid, amount, paid_at FROM bcb_received_pix
      WHERE credited AND paid_at >= $1 AND paid_at < $2
        AND ($3::timestamptz IS NULL OR (paid_at, e2eid) > ($3::timestamptz, $4::text))
      ORDER BY paid_at, e2eid LIMIT $5`,
    [from, to, after?.paidAt ?? null, after?.e2eid ?? '', limit],
  );
  return rows.map((r) => ({ e2eid: r.e2eid, txid: r.txid, amount: Number(r.amount), paidAt: r.paid_at }));
}

/** A sale's status now (after a credit or a refund was applied). */
export async function saleStatus(db: Queryable, saleId: number): Promise<string | null> {
  const [row] = await db.query<{ status: string }>('SELECT status FROM sales WHERE id = $1', [saleId]);
  return row?.status ?? null;
}
