import { addRows, type GatheredWrite, type Queryable } from '../platform/db/db.js';
import { rowOrNull } from '../platform/sql/row-or-null.js';
import type { AcquirerPayment, PaymentType } from './acquirer.js';

/** A card sale's side at the acquirer (table card_payments). */
export interface CardPaymentRow {
  sale_id: number;
  /** The sale's uuid: the MerchantOrderId the payment is found again by. */
  order_id: string;
  account_id: number;
  acquirer: string;
  card_token_id: number;
  payment_type: PaymentType;
  installments: number;
  capture: boolean;
  state: 'authorizing' | 'authorized' | 'captured' | 'denied' | 'voided' | 'failed';
  payment_id: string | null;
  authorized_amount: number;
  captured_amount: number | null;
  return_code: string | null;
  return_message: string | null;
  created_at: Date;
  authorized_at: Date | null;
  captured_at: Date | null;
  /** Held for a risk review: authorized without capture until an operator decides (or the review expires). */
  risk_hold: boolean;
}

export interface NewCardPayment {
  saleId: number;
  orderId: string;
  accountId: number;
  acquirer: string;
  cardTokenId: number;
  type: PaymentType;
  installments: number;
  capture: boolean;
  amount: number;
  riskHold: boolean;
}

/**
 * Stores a card sale's payment, authorizing; in a transaction that gathers writes (the charges opened together),
 * the payments of all its writers are stored by one statement just before its COMMIT.
 */
export function insertCardPayment(tx: Queryable, p: NewCardPayment): Promise<void> {
  return addRows(tx, PAYMENTS, [p]);
}

const PAYMENTS: GatheredWrite<NewCardPayment> = { write: (tx, items) => insertCardPayments(tx, items) };

/** Card payments in one statement whatever their number (a column array each: one text, planned once). */
async function insertCardPayments(tx: Queryable, payments: NewCardPayment[]): Promise<void> {
  await tx.query(
    `INSERT INTO card_payments (sale_id, order_id, account_id, acquirer, card_token_id, payment_type, installments,
       capture, state, authorized_amount, risk_hold)
     SELECT sale_id, order_id, account_id, acquirer, card_token_id, payment_type, installments, capture,
       'authorizing', authorized_amount, risk_hold
       FROM unnest($1::bigint[], $2::uuid[], $3::bigint[], $4::text[], $5::bigint[], $6::text[], $7::int[],
         $8::bool[], $9::bigint[], $10::bool[])
         AS p(sale_id, order_id, account_id, acquirer, card_token_id, payment_type, installments, capture,
           authorized_amount, risk_hold)`,
    [
      payments.map((p) => p.saleId),
      payments.map((p) => p.orderId),
      payments.map((p) => p.accountId),
      payments.map((p) => p.acquirer),
      payments.map((p) => p.cardTokenId),
      payments.map((p) => p.type),
      payments.map((p) => p.installments),
      payments.map((p) => p.capture),
      payments.map((p) => p.amount),
      payments.map((p) => p.riskHold),
    ],
    { prepare: 'card_payments_insert_v1' },
  );
}

export async function lockCardPayment(tx: Queryable, saleId: number): Promise<CardPaymentRow | null> {
  return rowOrNull<CardPaymentRow>(tx, 'SELECT * FROM card_payments WHERE sale_id = $1 FOR UPDATE', [saleId]);
}

export async function findCardPayment(q: Queryable, saleId: number): Promise<CardPaymentRow | null> {
  return rowOrNull<CardPaymentRow>(q, 'SELECT * FROM card_payments WHERE sale_id = $1', [saleId]);
}

/** Records what the acquirer reported of the payment (its state's own timestamp set once). */
export async function recordAcquirerState(
  tx: Queryable,
  saleId: number,
  state: CardPaymentRow['state'],
  payment: AcquirerPayment | null,
): Promise<void> {
  await tx.query(
    `UPDATE card_payments SET state = $2,
        payment_id = COALESCE($3, payment_id),
        captured_amount = CASE WHEN $2 = 'captured' THEN $4::bigint ELSE captured_amount END,
        return_code = COALESCE($5, return_code),
        return_message = COALESCE($6, return_message),
        authorized_at = CASE WHEN $2 IN ('authorized', 'captured') THEN COALESCE(authorized_at, now())
                             ELSE authorized_at END,
        captured_at = CASE WHEN $2 = 'captured' THEN COALESCE(captured_at, now()) ELSE captured_at END,
        updated_at = now()
      WHERE sale_id = $1`,
    [
      saleId,
      state,
      payment?.paymentId || null,
      payment?.capturedCents ?? null,
      payment?.returnCode ?? null,
      payment?.returnMessage ?? null,
    ],
  );
}

/**
 * The card payments of these sales, locked in sale order (two groups cannot deadlock), and in the same statement
 * the captures in full the acquirer reported of those still authorizing recorded (the common answer: its state,
 * payment id, return code and message, the authorized amount captured). By sale id: each row as it was locked,
 * `captured_now` when this statement recorded its capture (any other answer is the caller's to apply).
 */
export async function lockRecordingCaptures(
  tx: Queryable,
  saleIds: number[],
  captures: { saleId: number; payment: AcquirerPayment }[],
): Promise<Map<number, CardPaymentRow & { captured_now: boolean }>> {
  const rows = await tx.query<CardPaymentRow & { captured_now: boolean }>(
    `WITH locked AS (
       SELECT * FROM card_payments WHERE sale_id = ANY($1::bigint[]) ORDER BY sale_id FOR UPDATE),
     v AS (
       SELECT * FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[])
         AS v(sale_id, captured_cents, payment_id, return_code, return_message)),
     captured AS (
       UPDATE card_payments c SET state = 'captured',
           payment_id = COALESCE(NULLIF(v.payment_id, ''), c.payment_id),
           captured_amount = c.authorized_amount,
           return_code = COALESCE(v.return_code, c.return_code),
           return_message = COALESCE(v.return_message, c.return_message),
           authorized_at = COALESCE(c.authorized_at, now()),
           captured_at = COALESCE(c.captured_at, now()),
           updated_at = now()
         FROM locked l JOIN v ON v.sale_id = l.sale_id
        WHERE c.sale_id = ANY($2::bigint[]) AND c.sale_id = l.sale_id AND l.state = 'authorizing'
          AND (COALESCE(v.captured_cents, 0) = 0 OR v.captured_cents = l.authorized_amount)
       RETURNING c.sale_id)
     SELECT l.*, EXISTS (SELECT 1 FROM captured k WHERE k.sale_id = l.sale_id) AS captured_now
       FROM locked l ORDER BY l.sale_id`,
    [
      saleIds,
      captures.map((c) => c.saleId),
      captures.map((c) => c.payment.capturedCents ?? null),
      captures.map((c) => c.payment.paymentId),
      captures.map((c) => c.payment.returnCode ?? null),
      captures.map((c) => c.payment.returnMessage ?? null),
    ],
    // planned once per connection: its text is fixed
    { prepare: 'card_lock_recording_captures_v1' },
  );
  return new Map(rows.map((r) => [Number(r.sale_id), r]));
}

/** Authorizations still open past `seconds` (the void job), oldest first. */
export async function authorizationsOlderThan(
  q: Queryable,
  seconds: number,
  limit: number,
): Promise<CardPaymentRow[]> {
  return q.query<CardPaymentRow>(
    `SELECT * FROM card_payments WHERE state = 'authorized' AND authorized_at < now() - make_interval(secs => $1)
      ORDER BY authorized_at LIMIT $2`,
    [seconds, limit],
  );
}

/**
 * An account's authorizations not captured and not held for a risk review (a closed account's, voided), oldest
 * first; `after`: those of sales after that one (each is read once even when its void fails).
 */
export async function openAuthorizationsOf(
  q: Queryable,
  accountId: number,
  after: number,
  limit: number,
): Promise<CardPaymentRow[]> {
  return q.query<CardPaymentRow>(
    `SELECT * FROM card_payments
      WHERE state = 'authorized' AND account_id = $1 AND NOT risk_hold AND sale_id > $2
      ORDER BY sale_id LIMIT $3`,
    [accountId, after, limit],
  );
}

/** Authorizations whose outcome is unknown for at least `seconds` (the resolving job), oldest first. */
export async function unresolvedOlderThan(
  q: Queryable,
  seconds: number,
  limit: number,
): Promise<CardPaymentRow[]> {
  return q.query<CardPaymentRow>(
    `SELECT * FROM card_payments
      WHERE state = 'authorizing' AND updated_at < now() - make_interval(secs => $1)
      ORDER BY created_at LIMIT $2`,
    [seconds, limit],
  );
}

/** How long one capture request may speak to the acquirer for a sale before another may (beyond any timeout). */
const CAPTURE_CLAIM_SECONDS = 120;

/**
 * Claims the right to capture the sale's authorization (one capture at a time per sale): the payment as it is
 * when claimed, null when it is not an authorization waiting for its capture or another request holds the claim.
 */
export async function claimCapture(q: Queryable, saleId: number): Promise<CardPaymentRow | null> {
  const [claimed] = await q.query<CardPaymentRow>(
    `UPDATE card_payments SET capture_claimed_until = now() + make_interval(secs => $2)
      WHERE sale_id = $1 AND state = 'authorized'
        AND (capture_claimed_until IS NULL OR capture_claimed_until < now())
      RETURNING *`,
    [saleId, CAPTURE_CLAIM_SECONDS],
  );
  return claimed ?? null;
}

export async function releaseCapture(q: Queryable, saleId: number): Promise<void> {
  await q.query('UPDATE card_payments SET capture_claimed_until = NULL WHERE sale_id = $1', [saleId]);
}

/** How long one refund request may speak to the acquirer for a sale before another may. */
export const REFUND_CLAIM_SECONDS = 120;

/**
 * Claims the right to send a refund of the sale's payment to the acquirer (one at a time per sale): the payment
 * when claimed, `busy` when another request holds the claim, null when the sale has no card payment.
 */
export async function claimCardRefund(
  q: Queryable,
  orderId: string,
): Promise<{ sale_id: number; payment_id: string | null } | 'busy' | null> {
  const [claimed] = await q.query<{ sale_id: number; payment_id: string | null }>(
    `UPDATE card_payments SET refund_claimed_until = now() + make_interval(secs => $2)
      WHERE order_id = $1 AND (refund_claimed_until IS NULL OR refund_claimed_until < now())
      RETURNING sale_id, payment_id`,
    [orderId, REFUND_CLAIM_SECONDS],
  );
  if (claimed) return claimed;
  const [exists] = await q.query('SELECT 1 FROM card_payments WHERE order_id = $1', [orderId]);
  return exists ? 'busy' : null;
}

export async function releaseCardRefund(q: Queryable, saleId: number): Promise<void> {
  await q.query('UPDATE card_payments SET refund_claimed_until = NULL WHERE sale_id = $1', [saleId]);
}

export interface RefundAttempt {
  id: number;
  amount: number;
  voided_before: number;
}

/** Records the refund's attempt, about to be sent, with what the payment had voided then. */
export async function recordRefundAttempt(
  q: Queryable,
  a: { refundId: number; saleId: number; amount: number; voidedBefore: number },
): Promise<RefundAttempt> {
  const [row] = await q.query<RefundAttempt>(
    `INSERT INTO card_refund_attempts (refund_id, sale_id, amount, voided_before) VALUES ($1, $2, $3, $4)
     RETURNING id, amount, voided_before`,
    [a.refundId, a.saleId, a.amount, a.voidedBefore],
  );
  return row!;
}

/** The refund's recorded attempt, if a void of it was ever about to be sent. */
export async function refundAttemptOf(q: Queryable, refundId: number): Promise<RefundAttempt | null> {
  return rowOrNull<RefundAttempt>(
    q,
    'SELECT id, amount, voided_before FROM card_refund_attempts WHERE refund_id = $1',
    [refundId],
  );
}

/** What the payment had voided when the sale's next attempt after this one was about to be sent, if any. */
export async function voidedAfter(q: Queryable, saleId: number, attemptId: number): Promise<number | null> {
  const [row] = await q.query<{ voided_before: number }>(
    'SELECT voided_before FROM card_refund_attempts WHERE sale_id = $1 AND id > $2 ORDER BY id LIMIT 1',
    [saleId, attemptId],
  );
  return row ? row.voided_before : null;
}

export async function forgetRefundAttempt(q: Queryable, refundId: number): Promise<void> {
  await q.query('DELETE FROM card_refund_attempts WHERE refund_id = $1', [refundId]);
}

/** The risk review is decided: the authorization is the merchant's again (captured, voided or left to capture). */
export async function clearRiskHold(tx: Queryable, saleId: number): Promise<void> {
  await tx.query('UPDATE card_payments SET risk_hold = false WHERE sale_id = $1', [saleId]);
}

/** Authorizations held for a risk review for longer than `hours`, oldest first. */
export async function riskHoldsOlderThan(
  q: Queryable,
  hours: number,
  limit: number,
): Promise<CardPaymentRow[]> {
  return q.query<CardPaymentRow>(
    `SELECT * FROM card_payments WHERE risk_hold AND state = 'authorized'
        AND authorized_at < now() - make_interval(hours => $1)
      ORDER BY authorized_at LIMIT $2`,
    [hours, limit],
  );
}
