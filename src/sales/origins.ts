import type { Queryable } from '../platform/db/db.js';
import type { SaleStatus } from './settlement/status-machine.js';

/** A sale as the checkout module sees it: enough to count a link's uses and tell a session's state. */
export interface OriginSale {
  uuid: string;
  status: SaleStatus;
  amount: number;
  /** The PIX charge's copy-and-paste code (BR Code). */
  pixKey: string | null;
  /** Paid once (completed_at is set on the first PAGO and kept through refunds and disputes). */
  paid: boolean;
  chargeExpiresAt: Date | null;
}

/** A sale not paid that may still be: an open PIX charge, a boleto before its end, an authorization to capture. */
const STILL_PAYABLE = `status = 'EM_PROCESSAMENTO'
             OR (status = 'PENDENTE' AND (charge_expires_at IS NULL OR charge_expires_at > now()))`;

/**
 * Each payment link's uses: its sales that were paid (a refund later does not give a use back), and those that
 * may still be (`waiting`: they hold a use of a link of maxUses until they end).
 */
export async function linkUses(
  q: Queryable,
  linkIds: readonly string[],
): Promise<Map<string, { paid: number; waiting: number }>> {
  if (linkIds.length === 0) return new Map();
  const rows = await q.query<{ link: string; paid: number; waiting: number }>(
    `SELECT payment_link_id::text AS link,
            count(*) FILTER (WHERE completed_at IS NOT NULL)::int AS paid,
            count(*) FILTER (WHERE completed_at IS NULL AND (${STILL_PAYABLE}))::int AS waiting
       FROM sales WHERE payment_link_id = ANY($1::uuid[])
      GROUP BY payment_link_id`,
    [linkIds],
  );
  return new Map(rows.map((r) => [r.link, { paid: r.paid, waiting: r.waiting }]));
}

/**
 * A payment link's reservations: its sales paid, and those that may still be paid (an open PIX charge, a boleto
 * not yet expired or cancelled, a card authorization waiting for its capture). A link of N uses never has more.
 */
export async function reservationsOfLink(q: Queryable, linkId: string): Promise<number> {
  const [row] = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM sales
      WHERE payment_link_id = $1
        AND (completed_at IS NOT NULL OR ${STILL_PAYABLE})`,
    [linkId],
  );
  return row!.n;
}

/**
 * The PIX charge of this link or session still open for the payer whose page holds the token of `tokenHash` (and,
 * on a link, for this amount), if any: a payer who reloads the page and pays again is shown it rather than handed
 * a second charge. Another payer, whatever CPF they type, never is.
 */
export async function openChargeOfPayer(
  q: Queryable,
  origin: { paymentLinkId: string } | { checkoutSessionId: string },
  tokenHash: Buffer,
  amount: number,
  /** A sale not to count: the one a transaction has just stored, asking whether another was open before it. */
  except: number | null = null,
): Promise<OriginSale | null> {
  const [row] = await q.query<OriginSaleRow>(
    `SELECT ${COLUMNS} FROM sales
      WHERE ($1::uuid IS NULL OR payment_link_id = $1) AND ($2::uuid IS NULL OR checkout_session_id = $2)
        AND ($1::uuid IS NOT NULL OR $2::uuid IS NOT NULL)
        AND payer_token_hash = $3 AND amount = $4 AND ($5::bigint IS NULL OR id <> $5)
        AND status = 'PENDENTE' AND pix_key IS NOT NULL AND charge_expires_at > now() + interval '30 seconds'
      ORDER BY id DESC LIMIT 1`,
    [
      'paymentLinkId' in origin ? origin.paymentLinkId : null,
      'checkoutSessionId' in origin ? origin.checkoutSessionId : null,
      tokenHash,
      amount,
      except,
    ],
  );
  return row ? originSaleOf(row) : null;
}

/**
 * Each of these carts' PIX charge still open (the newest, with at least a minute left), if any: a cart's recovery
 * e-mail carries it, so that a payer who left it on another device can pay it rather than meet a link whose
 * uses it holds.
 */
export async function openPixOfCarts(
  q: Queryable,
  cartIds: readonly number[],
): Promise<Map<number, OriginSale>> {
  if (cartIds.length === 0) return new Map();
  const rows = await q.query<OriginSaleRow & { cart_id: number }>(
    `SELECT DISTINCT ON (cart_id) cart_id, ${COLUMNS} FROM sales
      WHERE cart_id = ANY($1::bigint[]) AND status = 'PENDENTE' AND pix_key IS NOT NULL
        AND payment_method = 'PIX' AND charge_expires_at > now() + interval '1 minute'
      ORDER BY cart_id, id DESC`,
    [cartIds],
  );
  return new Map(rows.map((r) => [Number(r.cart_id), originSaleOf(r)]));
}

/**
 * A condition: the cart `cartIdExpr` names has a payment under way that needs nothing more of its payer (a boleto
 * not yet paid nor cancelled, a card sale being decided): its payer did not leave it.
 */
export function cartPaymentUnderWaySql(cartIdExpr: string): string {
  return `EXISTS (SELECT 1 FROM sales s WHERE s.cart_id = ${cartIdExpr} AND s.payment_method <> 'PIX'
                     AND s.status IN ('PENDENTE', 'EM_PROCESSAMENTO'))`;
}

/** The sales of each checkout session, oldest first. */
export async function salesOfSessions(
  q: Queryable,
  sessionIds: readonly string[],
): Promise<Map<string, OriginSale[]>> {
  const out = new Map<string, OriginSale[]>();
  if (sessionIds.length === 0) return out;
  const rows = await q.query<OriginSaleRow & { session: string }>(
    `SELECT checkout_session_id::text AS session, ${COLUMNS}
       FROM sales WHERE checkout_session_id = ANY($1::uuid[]) ORDER BY id`,
    [sessionIds],
  );
  for (const r of rows) out.set(r.session, [...(out.get(r.session) ?? []), originSaleOf(r)]);
  return out;
}

/** One sale, by its numeric id (one the caller just made). */
export async function originSale(q: Queryable, saleId: number): Promise<OriginSale | null> {
  const [row] = await q.query<OriginSaleRow>(`SELECT ${COLUMNS} FROM sales WHERE id = $1`, [saleId]);
  return row ? originSaleOf(row) : null;
}

/** A sale by its uuid, only if it was started from that payment link or checkout session. */
export async function saleOfOrigin(
  q: Queryable,
  uuid: string,
  origin: { paymentLinkId: string } | { checkoutSessionId: string },
): Promise<OriginSale | null> {
  const [row] = await q.query<OriginSaleRow>(
    `SELECT ${COLUMNS} FROM sales
      WHERE uuid = $1 AND ($2::uuid IS NULL OR payment_link_id = $2) AND ($3::uuid IS NULL OR checkout_session_id = $3)`,
    [
      uuid,
      'paymentLinkId' in origin ? origin.paymentLinkId : null,
      'checkoutSessionId' in origin ? origin.checkoutSessionId : null,
    ],
  );
  return row ? originSaleOf(row) : null;
}

const COLUMNS = `uuid::text AS uuid, status, amount, pix_key, completed_at IS NOT NULL AS paid, charge_expires_at`;

interface OriginSaleRow {
  uuid: string;
  status: SaleStatus;
  amount: number;
  pix_key: string | null;
  paid: boolean;
  charge_expires_at: Date | null;
}

const originSaleOf = (r: OriginSaleRow): OriginSale => ({
  uuid: r.uuid,
  status: r.status,
  amount: Number(r.amount),
  pixKey: r.pix_key,
  paid: r.paid,
  chargeExpiresAt: r.charge_expires_at,
});

/** The sales a subscription made, newest first, as the Sale object (their public JSON), at most `limit`. */
export async function salesOfSubscription(
  q: Queryable,
  subscriptionId: string,
  limit: number,
): Promise<string[]> {
  const rows = await q.query<{ public_json: string }>(
    'SELECT public_json FROM sales WHERE subscription_id = $1 ORDER BY id DESC LIMIT $2',
    [subscriptionId, limit],
  );
  return rows.map((r) => r.public_json);
}

/** The status of each of these sales (by numeric id), for the modules that follow a sale they made. */
export async function saleStatuses(
  q: Queryable,
  saleIds: number[],
): Promise<Map<number, { status: string; uuid: string; amount: number }>> {
  if (saleIds.length === 0) return new Map();
  const rows = await q.query<{ id: number; status: string; uuid: string; amount: number }>(
    'SELECT id, status, uuid::text AS uuid, amount FROM sales WHERE id = ANY($1::bigint[])',
    [saleIds],
  );
  return new Map(
    rows.map((r) => [Number(r.id), { status: r.status, uuid: r.uuid, amount: Number(r.amount) }]),
  );
}
