import type { Queryable } from '../platform/db/db.js';
import type { PublicId } from '../platform/ids/public-ids.js';
import { rowOrNull } from '../platform/sql/row-or-null.js';
import type { SaleRow } from './types.js';

export const SALE_KEY_TTL_HOURS = 24;

/**
 * A claim whose sale is still unknown this long after it was made belongs to a process that died while the
 * processor was opening its charge (that call gives up after 30 s): it may be taken over.
 */
export const ABANDONED_CLAIM_SECONDS = 90;

export type SaleKeyState =
  /** token: this claim's own mark (its time), so binding or giving back a claim taken over does nothing */
  | { state: 'claimed'; token: string }
  /** requestHash null: the claim was given back meanwhile (claim again) */
  | { state: 'taken'; requestHash: string | null; saleId: number | null };

/**
 * Claims an Idempotency-Key on its own (autocommitted: the claim is seen by every process while the charge is
 * opened, without a transaction held open across that call). A key claimed by someone else comes back with
 * its request and its sale (null while that request is still opening the charge); an abandoned claim is
 * taken over.
 */
export async function claimSaleKey(
  db: Queryable,
  accountId: number,
  key: string,
  requestHash: string,
): Promise<SaleKeyState> {
  await db.query('DELETE FROM sale_idempotency WHERE account_id = $1 AND key = $2 AND expires_at <= now()', [
    accountId,
    key,
  ]);
  const [row] = await db.query<{ token: string | null; request_hash: string; sale_id: number | null }>(
    `WITH ins AS (
       INSERT INTO sale_idempotency (account_id, key, request_hash, expires_at)
       VALUES ($1, $2, $3, now() + make_interval(hours => $4)) ON CONFLICT DO NOTHING RETURNING expires_at),
     takeover AS (
       -- expires_at is the claim's time plus the key's lifetime
       UPDATE sale_idempotency SET request_hash = $3, expires_at = now() + make_interval(hours => $4)
        WHERE account_id = $1 AND key = $2 AND sale_id IS NULL AND NOT EXISTS (SELECT 1 FROM ins)
          AND expires_at < now() + make_interval(hours => $4) - make_interval(secs => $5)
       RETURNING expires_at)
     SELECT coalesce((SELECT expires_at FROM ins), (SELECT expires_at FROM takeover))::text AS token,
            s.request_hash, s.sale_id
       FROM (SELECT 1) one
       LEFT JOIN sale_idempotency s ON s.account_id = $1 AND s.key = $2`,
    [accountId, key, requestHash, SALE_KEY_TTL_HOURS, ABANDONED_CLAIM_SECONDS],
  );
  if (row!.token !== null) return { state: 'claimed', token: row!.token };
  return { state: 'taken', requestHash: row!.request_hash, saleId: row!.sale_id };
}

/** Gives a claimed key back (its request failed): a retry with it is a new request. */
export async function releaseSaleKey(
  db: Queryable,
  accountId: number,
  key: string,
  token: string,
): Promise<void> {
  await db.query(
    'DELETE FROM sale_idempotency WHERE account_id = $1 AND key = $2 AND sale_id IS NULL AND expires_at = $3::timestamptz',
    [accountId, key, token],
  );
}

/**
 * Binds the key to the sale its request made; false when the claim is no longer this request's (taken over
 * after it looked abandoned): then that request's sale is the key's, and this one must not be stored.
 */
export async function bindSaleKey(
  tx: Queryable,
  accountId: number,
  key: string,
  token: string,
  saleId: number,
): Promise<boolean> {
  const rows = await tx.query(
    `UPDATE sale_idempotency SET sale_id = $3
      WHERE account_id = $1 AND key = $2 AND sale_id IS NULL AND expires_at = $4::timestamptz RETURNING 1`,
    [accountId, key, saleId, token],
  );
  return rows.length === 1;
}

/** A PENDENTE charge past its expiry, as the expiry job reads it. */
export interface ExpiredChargeRow {
  id: number;
  uuid: string;
  amount: number;
  processor: string;
  payment_method: string;
  external_transaction_id: string;
  charge_expires_at: Date;
}

/** PENDENTE charges past their expiry, after a (charge_expires_at, id) position, not locked. */
export async function findExpiredCharges(
  q: Queryable,
  after: { at: Date; id: number } | null,
  limit: number,
  methods: readonly string[],
): Promise<ExpiredChargeRow[]> {
  return q.query<ExpiredChargeRow>(
    `SELECT id, uuid, amount, processor, payment_method, external_transaction_id, charge_expires_at FROM sales
      WHERE status = 'PENDENTE' AND charge_expires_at < now() AND payment_method = ANY($4::text[])
        AND ($1::timestamptz IS NULL OR (charge_expires_at, id) > ($1, $2))
      ORDER BY charge_expires_at, id LIMIT $3`,
    [after?.at ?? null, after?.id ?? 0, limit, methods],
  );
}

/** Locks those of `ids` still PENDENTE past their expiry (one being settled elsewhere is skipped). */
export async function lockExpiredCharges(tx: Queryable, ids: number[]): Promise<number[]> {
  const rows = await tx.query<{ id: number }>(
    `SELECT id FROM sales WHERE id = ANY($1) AND status = 'PENDENTE' AND charge_expires_at < now()
      ORDER BY id FOR UPDATE SKIP LOCKED`,
    [ids],
  );
  return rows.map((r) => r.id);
}

/** One pending charge of these methods, locked for its cancellation; null when it is no longer pending. */
export async function lockPendingCharge(tx: Queryable, saleId: number): Promise<{ id: number } | null> {
  return rowOrNull<{ id: number }>(
    tx,
    `SELECT id FROM sales WHERE id = $1 AND status = 'PENDENTE' AND payment_method IN ('PIX', 'BOLETO', 'PIX_AUTOMATICO')
      FOR UPDATE`,
    [saleId],
  );
}

/** An account's charges awaiting payment (PIX, boleto, a scheduled Pix Automático cycle), oldest first. */
export async function pendingChargesOf(q: Queryable, accountId: number, limit: number): Promise<number[]> {
  const rows = await q.query<{ id: string }>(
    `SELECT id FROM sales WHERE account_id = $1 AND status = 'PENDENTE'
        AND payment_method IN ('PIX', 'BOLETO', 'PIX_AUTOMATICO')
      ORDER BY id LIMIT $2`,
    [accountId, limit],
  );
  return rows.map((r) => Number(r.id));
}

/** The other charges awaiting payment of the checkout session of sale `saleId` (none when it has no session). */
export async function otherSessionCharges(
  q: Queryable,
  saleId: number,
): Promise<{ id: number; accountId: number }[]> {
  const rows = await q.query<{ id: string; account_id: string }>(
    `SELECT o.id, o.account_id FROM sales s JOIN sales o ON o.checkout_session_id = s.checkout_session_id
      WHERE s.id = $1 AND o.id <> s.id AND o.status = 'PENDENTE'
        AND o.payment_method IN ('PIX', 'BOLETO', 'PIX_AUTOMATICO')
      ORDER BY o.id`,
    [saleId],
  );
  return rows.map((r) => ({ id: Number(r.id), accountId: Number(r.account_id) }));
}

export async function deleteExpiredSaleKeys(q: Queryable): Promise<number> {
  const rows = await q.query('DELETE FROM sale_idempotency WHERE expires_at < now() RETURNING 1');
  return rows.length;
}

/** One indexed read by uuid or numeric id, whatever the account (the caller decides 403 vs 404). */
export async function findSaleRow(q: Queryable, id: PublicId): Promise<SaleRow | null> {
  const [row] =
    id.kind === 'uuid'
      ? await q.query<SaleRow>('SELECT * FROM sales WHERE uuid = $1', [id.uuid])
      : await q.query<SaleRow>('SELECT * FROM sales WHERE id = $1', [id.id]);
  return row ?? null;
}

export async function findSaleByProcessorRef(
  q: Queryable,
  processor: string,
  externalTransactionId: string,
): Promise<SaleRow | null> {
  return rowOrNull<SaleRow>(q, 'SELECT * FROM sales WHERE processor = $1 AND external_transaction_id = $2', [
    processor,
    externalTransactionId,
  ]);
}

/** A processor's charges among `refs` (its own ids): what each is now. */
export async function salesByProcessorRefs(
  q: Queryable,
  processor: string,
  refs: string[],
): Promise<
  { ref: string; id: number; accountId: number; amount: number; status: string; paymentMethod: string }[]
> {
  const rows = await q.query<{
    ref: string;
    id: number;
    account_id: number;
    amount: number;
    status: string;
    payment_method: string;
  }>(
    `SELECT external_transaction_id AS ref, id, account_id, amount, status, payment_method FROM sales
      WHERE processor = $1 AND external_transaction_id = ANY($2::text[])`,
    [processor, refs],
  );
  return rows.map((r) => ({
    ref: r.ref,
    id: Number(r.id),
    accountId: Number(r.account_id),
    amount: Number(r.amount),
    status: r.status,
    paymentMethod: r.payment_method,
  }));
}
