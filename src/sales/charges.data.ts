import type { Queryable } from '../platform/db.js';
import type { PublicId } from '../platform/ids.js';
import type { SaleRow } from './types.js';

export const SALE_KEY_TTL_HOURS = 24;

/**
 * Claims an Idempotency-Key inside the caller's transaction. A concurrent holder of the same key makes this
 * wait for its commit; then the key is found taken and its stored request is returned instead.
 */
export async function claimSaleKey(
  tx: Queryable,
  accountId: number,
  key: string,
  requestHash: string,
): Promise<{ requestHash: string; saleId: number } | null> {
  await tx.query('DELETE FROM sale_idempotency WHERE account_id = $1 AND key = $2 AND expires_at <= now()', [
    accountId,
    key,
  ]);
  const claimed = await tx.query(
    `INSERT INTO sale_idempotency (account_id, key, request_hash, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(hours => $4)) ON CONFLICT DO NOTHING RETURNING 1`,
    [accountId, key, requestHash, SALE_KEY_TTL_HOURS],
  );
  if (claimed.length === 1) return null;
  const [row] = await tx.query<{ request_hash: string; sale_id: number }>(
    'SELECT request_hash, sale_id FROM sale_idempotency WHERE account_id = $1 AND key = $2',
    [accountId, key],
  );
  return { requestHash: row!.request_hash, saleId: row!.sale_id };
}

export async function bindSaleKey(
  tx: Queryable,
  accountId: number,
  key: string,
  saleId: number,
): Promise<void> {
  await tx.query('UPDATE sale_idempotency SET sale_id = $3 WHERE account_id = $1 AND key = $2', [
    accountId,
    key,
    saleId,
  ]);
}

export async function setChargeExpiry(
  tx: Queryable,
  saleId: number,
  expiresInSeconds: number,
): Promise<void> {
  await tx.query(`UPDATE sales SET charge_expires_at = now() + make_interval(secs => $2) WHERE id = $1`, [
    saleId,
    expiresInSeconds,
  ]);
}

/** Up to `limit` pending charges past their expiry, locked; those another worker holds are skipped. */
export async function lockExpiredCharges(tx: Queryable, limit: number): Promise<number[]> {
  const rows = await tx.query<{ id: number }>(
    `SELECT id FROM sales WHERE status = 'PENDENTE' AND charge_expires_at < now()
      ORDER BY charge_expires_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
    [limit],
  );
  return rows.map((r) => r.id);
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
  const [row] = await q.query<SaleRow>(
    'SELECT * FROM sales WHERE processor = $1 AND external_transaction_id = $2',
    [processor, externalTransactionId],
  );
  return row ?? null;
}
