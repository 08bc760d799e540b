import type { Queryable } from '../platform/db/db.js';
import type { PublicId } from '../platform/ids/public-ids.js';
import { rowOrNull } from '../platform/sql/row-or-null.js';
import type { Customer, PaymentMethod, SaleItem, SaleRow } from './types.js';

export interface NewSaleRow {
  uuid: string;
  accountId: number;
  amount: number;
  systemFee: number;
  netAmount: number;
  reserveAmount: number;
  /** The fee's terms, kept with the sale (a later amount is priced on them). */
  feePercentE4: number;
  feeFixed: number;
  paymentMethod: PaymentMethod;
  customer: Customer;
  items: Omit<SaleItem, 'id'>[];
  shipping: Record<string, unknown> | null;
  pixKey: string | null;
  cardLastFour: string | null;
  cardBrand: string | null;
  boletoCode: string | null;
  installments: number | null;
  processor: string;
  externalTransactionId: string;
  postbackUrl: string | null;
  cartId: number | null;
  recurrence: { id: number; idRec: string; contrato: string } | null;
  /** The charge's metadata as given (POST /api/transactions); {} otherwise. */
  metadata?: Record<string, string>;
  /** A boleto's part of the Sale object (the boletos module), written once at issue; null otherwise. */
  boleto?: Record<string, unknown> | null;
  /** Where the payer started the payment, when it was a payment link or a checkout session. */
  origin?: SaleOrigin;
  /** The risk rules' decision on the sale (the risk module's `RiskDecision`), when they were asked. */
  risk?: object | null;
  /** A split sale's `split` (the Sale object's) and its recipients' internal ids, in order. */
  splitPlan?: { json: Record<string, unknown>[]; recipients: number[] } | null;
  /**
   * When an open charge stops being payable: seconds from now (the database's clock), or an instant (a charge
   * with due date). Stored with the sale, so the expiry job finds it without a second write.
   */
  chargeExpiry?: { inSeconds: number } | { at: Date } | null;
}

/** A sale started from a payment link or a checkout session (the checkout module), or made by a subscription. */
export interface SaleOrigin {
  paymentLinkId?: string;
  checkoutSessionId?: string;
  /** The subscription whose period the sale charges (the subscriptions module). */
  subscriptionId?: string;
  /** The page the payer can come back to: the sale then belongs to the payer's checkout cart. */
  recoveryUrl?: string;
  /** The SHA-256 of the token the payer's page keeps: only that page is shown the open charge again. */
  payerTokenHash?: Buffer;
}

/**
 * Inserts a PENDENTE sale in one statement; item ids come from their own sequence, in the order given. Each item is
 * written key by key as JSON text (the json column keeps it and the lookup emits it verbatim) and the statement
 * puts its id first, so the text is what `JSON.stringify({id, title, unitPrice, quantity, tangible})` makes.
 */
export async function insertSale(tx: Queryable, s: NewSaleRow): Promise<SaleRow> {
  const items = s.items.map((item) =>
    JSON.stringify({
      title: item.title,
      unitPrice: item.unitPrice,
      quantity: item.quantity,
      tangible: item.tangible,
    }),
  );
  const { name, email, document, phone } = s.customer;
  const expiry = s.chargeExpiry ?? null;
  const [row] = await tx.query<SaleRow>(
    `INSERT INTO sales (uuid, account_id, status, amount, system_fee, net_amount, reserve_amount,
        payment_method, customer, items, shipping, pix_key, card_last_four, card_brand, boleto_code,
        installments, processor, external_transaction_id, postback_url, cart_id, recurrence_id, id_rec, contrato,
        metadata, boleto, payment_link_id, checkout_session_id, fee_percent_e4, fee_fixed, risk, split,
        split_recipients, subscription_id, payer_token_hash, charge_expires_at)
     VALUES ($1, $2, 'PENDENTE', $3, $4, $5, $6, $7, $8,
        (SELECT coalesce('[' || string_agg('{"id":' || nextval('sale_item_id_seq') || ',' || substr(j, 2), ','
                ORDER BY n) || ']', '[]')::json
           FROM unnest($9::text[]) WITH ORDINALITY AS i(j, n)),
        $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30,
        $31, $32, $33, coalesce($35::timestamptz, now() + make_interval(secs => $34::int)))
     RETURNING *`,
    [
      s.uuid,
      s.accountId,
      s.amount,
      s.systemFee,
      s.netAmount,
      s.reserveAmount,
      s.paymentMethod,
      JSON.stringify({ name, email, document, phone }),
      items,
      s.shipping === null ? null : JSON.stringify(s.shipping),
      s.pixKey,
      s.cardLastFour,
      s.cardBrand,
      s.boletoCode,
      s.installments,
      s.processor,
      s.externalTransactionId,
      s.postbackUrl,
      s.cartId,
      s.recurrence?.id ?? null,
      s.recurrence?.idRec ?? null,
      s.recurrence?.contrato ?? null,
      JSON.stringify(s.metadata ?? {}),
      s.boleto ? JSON.stringify(s.boleto) : null,
      s.origin?.paymentLinkId ?? null,
      s.origin?.checkoutSessionId ?? null,
      s.feePercentE4,
      s.feeFixed,
      s.risk ? JSON.stringify(s.risk) : null,
      s.splitPlan ? JSON.stringify(s.splitPlan.json) : null,
      s.splitPlan ? s.splitPlan.recipients : null,
      s.origin?.subscriptionId ?? null,
      s.origin?.payerTokenHash ?? null,
      expiry && 'inSeconds' in expiry ? expiry.inSeconds : null,
      expiry && 'at' in expiry ? expiry.at : null,
    ],
    // every sale is stored by this one statement: parsed and planned once per connection
    { prepare: 'sale_insert_v1' },
  );
  return row!;
}

/**
 * The API contract's Sale object as JSON text (column public_json, rebuilt by a trigger on every write: see
 * migrations/020_sales.sql), with the owning account. One indexed read; the route sends the bytes as they are.
 */
export async function findSaleJson(
  q: Queryable,
  id: PublicId,
): Promise<{ account_id: number; body: string } | null> {
  const [row] =
    id.kind === 'uuid'
      ? await q.query<{ account_id: number; body: string }>(
          'SELECT account_id, public_json AS body FROM sales WHERE uuid = $1',
          [id.uuid],
          { prepare: 'sale_json_by_uuid' },
        )
      : await q.query<{ account_id: number; body: string }>(
          'SELECT account_id, public_json AS body FROM sales WHERE id = $1',
          [id.id],
          { prepare: 'sale_json_by_id' },
        );
  return row ?? null;
}

export async function lockSale(tx: Queryable, id: number): Promise<SaleRow | null> {
  return rowOrNull<SaleRow>(tx, 'SELECT * FROM sales WHERE id = $1 FOR UPDATE', [id]);
}

/** These sales, locked in id order (two batches cannot deadlock); the ones that exist. */
export async function lockSalesById(tx: Queryable, ids: number[]): Promise<SaleRow[]> {
  if (ids.length === 0) return [];
  return tx.query<SaleRow>('SELECT * FROM sales WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE', [ids]);
}

export async function setReserveHeld(tx: Queryable, id: number, reserveHeld: boolean): Promise<void> {
  await tx.query('UPDATE sales SET reserve_held = $2, updated_at = now() WHERE id = $1', [id, reserveHeld]);
}

/** A card sale the acquirer denied: its reason, on the Sale object and its notifications (before the move). */
export async function setRefusalReason(
  tx: Queryable,
  id: number,
  reason: { code: string; message: string },
): Promise<void> {
  await tx.query('UPDATE sales SET refusal_reason = $2, updated_at = now() WHERE id = $1', [
    id,
    JSON.stringify({ code: reason.code, message: reason.message }),
  ]);
}

/** The risk rules' decision on a sale, as it changes (a review approved, rejected or expired). */
export async function setSaleRisk(tx: Queryable, id: number, risk: object): Promise<void> {
  await tx.query('UPDATE sales SET risk = $2, updated_at = now() WHERE id = $1', [id, JSON.stringify(risk)]);
}

/** A sale's amount and what follows from it, before it is paid (a card sale captured for less). */
export async function setSaleAmount(
  tx: Queryable,
  id: number,
  s: {
    amount: number;
    systemFee: number;
    netAmount: number;
    reserveAmount: number;
    /** A split sale's split with its parties' nets on the new amount; null: no split (unchanged). */
    split: Record<string, unknown>[] | null;
  },
): Promise<void> {
  await tx.query(
    `UPDATE sales SET amount = $2, system_fee = $3, net_amount = $4, reserve_amount = $5,
            split = COALESCE($6::json, split), updated_at = now()
      WHERE id = $1`,
    [
      id,
      s.amount,
      s.systemFee,
      s.netAmount,
      s.reserveAmount,
      s.split === null ? null : JSON.stringify(s.split),
    ],
  );
}

/** A sale's status now (after a credit or a refund was applied). */
export async function saleStatus(q: Queryable, saleId: number): Promise<string | null> {
  const [row] = await q.query<{ status: string }>('SELECT status FROM sales WHERE id = $1', [saleId], {
    prepare: 'sale_status_v1',
  });
  return row?.status ?? null;
}

/** A sale's owner and status by its public id: what a route serving one of its documents needs to know. */
export async function saleOwnerAndStatus(
  q: Queryable,
  id: PublicId,
): Promise<{ id: number; account_id: number; status: string } | null> {
  const [row] =
    id.kind === 'uuid'
      ? await q.query<{ id: number; account_id: number; status: string }>(
          'SELECT id, account_id, status FROM sales WHERE uuid = $1',
          [id.uuid],
          { prepare: 'sale_owner_status_by_uuid' },
        )
      : await q.query<{ id: number; account_id: number; status: string }>(
          'SELECT id, account_id, status FROM sales WHERE id = $1',
          [id.id],
          { prepare: 'sale_owner_status_by_id' },
        );
  return row ? { ...row, id: Number(row.id) } : null;
}

/** The uuids of sales by id. */
export async function saleUuids(q: Queryable, ids: number[]): Promise<Map<number, string>> {
  const rows = await q.query<{ id: number; uuid: string }>(
    'SELECT id, uuid FROM sales WHERE id = ANY($1::bigint[])',
    [ids],
  );
  return new Map(rows.map((r) => [Number(r.id), r.uuid]));
}

/**
 * A paid sale's `completedAt` moved back to when it was paid by the processor's clock (`at`): never later than
 * the move recorded, never before the sale existed.
 */
export async function setPaidAtNoLaterThan(tx: Queryable, saleId: number, at: Date): Promise<void> {
  await tx.query(
    `UPDATE sales SET completed_at = greatest(created_at, least(completed_at, $2::timestamptz))
      WHERE id = $1 AND completed_at IS NOT NULL AND completed_at > $2::timestamptz`,
    [saleId, at.toISOString()],
  );
}

/** A recurrence's paid sale no subscription has taken yet (the first, locked), or null. */
export async function unclaimedPaidSaleOfRecurrence(
  tx: Queryable,
  recurrenceId: number,
): Promise<SaleRow | null> {
  return rowOrNull<SaleRow>(
    tx,
    `SELECT * FROM sales WHERE recurrence_id = $1 AND subscription_id IS NULL AND status = 'PAGO'
      ORDER BY id LIMIT 1 FOR UPDATE`,
    [recurrenceId],
  );
}

/** A sale becomes a subscription's payment: its Sale object carries `subscriptionId` from now on. */
export async function setSaleSubscription(
  tx: Queryable,
  saleId: number,
  subscriptionId: string,
): Promise<void> {
  await tx.query('UPDATE sales SET subscription_id = $2 WHERE id = $1', [saleId, subscriptionId]);
}
