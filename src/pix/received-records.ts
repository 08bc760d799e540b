import type { Queryable } from '../platform/db/db.js';
import { salesByProcessorRefs } from '../sales/index.js';
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
    salesByProcessorRefs(db, BCB_PROCESSOR, txids),
  ]);
  return {
    pix: new Map(pixRows.map((r) => [r.e2eid, { credited: r.credited, saleId: r.sale_id }])),
    charges: new Map(
      chargeRows.map((r) => [
        r.ref,
        { id: r.id, amount: r.amount, status: r.status, paymentMethod: r.paymentMethod },
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

/** The sale a received Pix credited (bcb processor), by its end-to-end id; null when it credited none. */
export async function saleOfReceivedPix(q: Queryable, e2eid: string): Promise<number | null> {
  const [row] = await q.query<{ sale_id: number }>(
    'SELECT sale_id FROM bcb_received_pix WHERE e2eid = $1 AND credited',
    [e2eid],
  );
  return row ? Number(row.sale_id) : null;
}

/** The end-to-end id of the confirmed Pix that paid the sale (credited), or null. */
export async function pixThatPaid(q: Queryable, saleId: number): Promise<string | null> {
  const [row] = await q.query<{ e2eid: string }>(
    'SELECT e2eid FROM bcb_received_pix WHERE sale_id = $1 AND credited',
    [saleId],
  );
  return row?.e2eid ?? null;
}
