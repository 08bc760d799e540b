import type { ReceivableTake } from '../../ledger/index.js';
import type { Queryable } from '../../platform/db/db.js';
import { rowOrNull } from '../../platform/sql/row-or-null.js';
import type { SaleRow } from '../types.js';

export type RefundStatus = 'PENDING' | 'DONE' | 'FAILED';

/** A row of `sale_refunds`. */
export interface RefundRow {
  id: number;
  uuid: string;
  sale_id: number;
  account_id: number;
  amount: number;
  net: number;
  status: RefundStatus;
  idempotency_key: string | null;
  request_hash: string | null;
  /** Why it was made, when the gateway knows (one made at the processor without the gateway asking). */
  reason: string | null;
  created_at: Date;
  updated_at: Date;
  /** When it ended, made or not made; null while pending. */
  completed_at: Date | null;
  /** Who paid for it: each party's part, from the sale's receivables and from available. */
  allocation: RefundAllocation[];
  /** The part of the gateway's fee it gives back (its amount less its share of the net). */
  fee_returned: number;
  /** The card installments it took from, given back if it ends not made. */
  receivable_takes: ReceivableTake[];
}

/** One party's part of a refund: `party` is "platform" (the account) or a recipient's id. */
export interface RefundAllocation {
  party: string;
  amountCents: number;
  fromReceivableCents: number;
  fromAvailableCents: number;
}

/** Who paid for a refund, as stored with it. */
export interface RefundPayers {
  allocation: RefundAllocation[];
  feeReturned: number;
  takes: ReceivableTake[];
}

/** How long an Idempotency-Key names its refund (as a cashout's). */
export const REFUND_KEY_HOURS = 24;

export async function insertRefund(
  tx: Queryable,
  r: {
    saleId: number;
    accountId: number;
    amount: number;
    net: number;
    status: RefundStatus;
    key: string | null;
    hash: string | null;
    reason?: string;
    payers: RefundPayers;
  },
): Promise<RefundRow> {
  const [row] = await tx.query<RefundRow>(
    `INSERT INTO sale_refunds (sale_id, account_id, amount, net, status, idempotency_key, request_hash, reason,
                               allocation, fee_returned, receivable_takes, completed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, CASE WHEN $5 = 'PENDING' THEN NULL ELSE now() END)
     RETURNING *`,
    [
      r.saleId,
      r.accountId,
      r.amount,
      r.net,
      r.status,
      r.key,
      r.hash,
      r.reason ?? null,
      JSON.stringify(r.payers.allocation),
      r.payers.feeReturned,
      JSON.stringify(r.payers.takes),
    ],
  );
  return row!;
}

/** The refund an Idempotency-Key names, if it was used within REFUND_KEY_HOURS; an older use frees the key. */
export async function refundOfKey(tx: Queryable, accountId: number, key: string): Promise<RefundRow | null> {
  await tx.query(
    `UPDATE sale_refunds SET idempotency_key = NULL, request_hash = NULL
      WHERE account_id = $1 AND idempotency_key = $2 AND created_at < now() - make_interval(hours => $3)`,
    [accountId, key, REFUND_KEY_HOURS],
  );
  return rowOrNull<RefundRow>(
    tx,
    'SELECT * FROM sale_refunds WHERE account_id = $1 AND idempotency_key = $2 FOR UPDATE',
    [accountId, key],
  );
}

/** A sale's refunds, oldest first. */
export function refundsOfSale(q: Queryable, saleId: number): Promise<RefundRow[]> {
  return q.query<RefundRow>('SELECT * FROM sale_refunds WHERE sale_id = $1 ORDER BY id', [saleId]);
}

export async function findRefund(q: Queryable, id: number): Promise<RefundRow | null> {
  return rowOrNull<RefundRow>(q, 'SELECT * FROM sale_refunds WHERE id = $1', [id]);
}

export async function lockRefund(tx: Queryable, id: number): Promise<RefundRow | null> {
  return rowOrNull<RefundRow>(tx, 'SELECT * FROM sale_refunds WHERE id = $1 FOR UPDATE', [id]);
}

/** What the sale's refunds still waiting for their processor will return to the payer. */
export async function pendingAmount(tx: Queryable, saleId: number): Promise<number> {
  const [row] = await tx.query<{ sum: number }>(
    `SELECT COALESCE(sum(amount), 0)::bigint AS sum FROM sale_refunds WHERE sale_id = $1 AND status = 'PENDING'`,
    [saleId],
  );
  return Number(row?.sum ?? 0);
}

/** The refund ended (DONE: made; FAILED: not made), as stored now. */
export async function setRefundStatus(tx: Queryable, id: number, status: RefundStatus): Promise<RefundRow> {
  const [row] = await tx.query<RefundRow>(
    `UPDATE sale_refunds SET status = $2, updated_at = now(),
            completed_at = CASE WHEN $2 = 'PENDING' THEN NULL ELSE now() END
      WHERE id = $1 RETURNING *`,
    [id, status],
  );
  return row!;
}

/** A refund that ended not made, in progress again with its share of the net as it is now. */
export async function reopenRefund(
  tx: Queryable,
  id: number,
  net: number,
  payers: RefundPayers,
): Promise<RefundRow> {
  const [row] = await tx.query<RefundRow>(
    `UPDATE sale_refunds SET status = 'PENDING', net = $2, updated_at = now(), completed_at = NULL,
            allocation = $3, fee_returned = $4, receivable_takes = $5
      WHERE id = $1 RETURNING *`,
    [id, net, JSON.stringify(payers.allocation), payers.feeReturned, JSON.stringify(payers.takes)],
  );
  return row!;
}

/** Counts the refund as just asked for again (not a forgotten one). */
export async function touchRefund(tx: Queryable, id: number): Promise<void> {
  await tx.query('UPDATE sale_refunds SET updated_at = now() WHERE id = $1', [id]);
}

/**
 * The sale's refund columns (the sales_public_json trigger rebuilds its refundedAmount); the sale as stored
 * after. The caller holds the sale's lock, so the values it computed from the locked row are still current.
 */
export async function setSaleRefunds(
  tx: Queryable,
  saleId: number,
  r: { refundedAmount: number; refundedNet: number; pendingNet: number },
): Promise<SaleRow> {
  const [row] = await tx.query<SaleRow>(
    `UPDATE sales SET refunded_amount = $2, refunded_net = $3, refund_pending_net = $4, updated_at = now()
      WHERE id = $1 RETURNING *`,
    [saleId, r.refundedAmount, r.refundedNet, r.pendingNet],
  );
  return row!;
}

const underWayRules: string[] = [];

/**
 * A payment method whose processor records its refund attempts (the pix module's devoluções) installs the SQL
 * condition that a refund `r` (sale_refunds) has one under way there: such a refund is never ended as not made
 * (its money released) while the processor may still make it. Installed once per process, with the method's
 * other rules (runtime.ts, the CLI).
 */
export function setRefundUnderWayRule(condition: string): void {
  if (!underWayRules.includes(condition)) underWayRules.push(condition);
}

/** SQL condition: a refund `r` is under way at its processor, by the rules installed. */
export function refundUnderWay(): string {
  return underWayRules.length === 0 ? 'false' : `(${underWayRules.join(' OR ')})`;
}

/** SQL condition on a refund id (an expression of the caller's statement): that refund is not made yet. */
export function refundNotDone(refundId: string): string {
  return `EXISTS (SELECT 1 FROM sale_refunds nd WHERE nd.id = ${refundId} AND nd.status <> 'DONE')`;
}

export interface ForgottenRefund {
  id: number;
  amount: number;
  sale_uuid: string;
  processor: string;
}

/** Pending refunds untouched for `seconds` with nothing under way at their processor: the oldest 100. */
export async function forgottenRefunds(q: Queryable, seconds: number): Promise<ForgottenRefund[]> {
  return q.query<ForgottenRefund>(
    `SELECT r.id, r.amount, s.uuid AS sale_uuid, s.processor FROM sale_refunds r JOIN sales s ON s.id = r.sale_id
      WHERE r.status = 'PENDING' AND r.updated_at < now() - make_interval(secs => $1) AND NOT ${refundUnderWay()}
      ORDER BY r.updated_at LIMIT 100`,
    [seconds],
  );
}

/** Whether the refund is still waiting for its processor (locked: decided under the caller's sale lock). */
export async function refundInProgress(tx: Queryable, id: number): Promise<boolean> {
  return (await lockRefund(tx, id))?.status === 'PENDING';
}

export async function newestPendingRefund(tx: Queryable, saleId: number): Promise<RefundRow | null> {
  return rowOrNull<RefundRow>(
    tx,
    `SELECT * FROM sale_refunds WHERE sale_id = $1 AND status = 'PENDING' ORDER BY id DESC LIMIT 1 FOR UPDATE`,
    [saleId],
  );
}
