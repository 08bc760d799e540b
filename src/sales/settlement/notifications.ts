import type { SaleRow } from '../types.js';

/** Fields both channels share, in the order of the API contract's "Sale notification" table. */
function common(s: SaleRow) {
  return {
    id: s.id,
    uuid: s.uuid,
    userId: s.account_id,
    amount: String(s.amount),
    date: s.created_at.toISOString(),
    status: s.status,
    paymentMethod: s.payment_method,
    customerDocument: s.customer.document,
    customerEmail: s.customer.email,
    customerName: s.customer.name,
    customerPhone: s.customer.phone,
    // the PIX sale's code alone: a boleto's Pix is in its boleto (pixCopyPaste), as the Sale object says
    pixKey: s.payment_method === 'BOLETO' ? null : s.pix_key,
    boletoCode: s.boleto_code,
    shipping: s.shipping === null ? null : JSON.stringify(s.shipping),
    saleItems: s.items.map((i) => ({
      id: i.id,
      saleId: s.id,
      saleUuid: s.uuid,
      title: i.title,
      unitPrice: String(i.unitPrice),
      quantity: i.quantity,
      tangible: i.tangible,
    })),
  };
}

/**
 * Card sales carry the card as the Sale object shows it (brand, last four, installments) and, refused, the
 * acquirer's reason; other sales' notifications are as the contract's table lists them.
 */
function card(s: SaleRow) {
  if (s.payment_method !== 'CREDIT_CARD' && s.payment_method !== 'DEBIT_CARD') return {};
  return {
    cardBrand: s.card_brand,
    cardLastFour: s.card_last_four,
    installments: s.installments,
  };
}

/** A refused sale's reason (the acquirer's, or the risk rules' RISK_BLOCKED), and the risk rules' decision. */
function refusalAndRisk(s: SaleRow) {
  return {
    ...(s.refusal_reason ? { refusalReason: s.refusal_reason } : {}),
    ...(s.risk ? { risk: s.risk } : {}),
  };
}

/** Recurring sales carry their mandate (decisions.md: idRec and contrato in notifications). */
function recurrence(s: SaleRow) {
  return s.id_rec !== null ? { idRec: s.id_rec, contrato: s.contrato ?? '' } : {};
}

/** A split sale carries its split (each rule and the platform, with netCents), as the Sale object does. */
function split(s: SaleRow) {
  return s.split ? { split: s.split } : {};
}

/** A subscription's sale carries the subscription's id, as the Sale object does. */
function subscription(s: SaleRow) {
  return s.subscription_id ? { subscriptionId: s.subscription_id } : {};
}

/** A sale made through a payment link or a checkout session names it, as the Sale object does. */
function origin(s: SaleRow) {
  return {
    ...(s.payment_link_id ? { paymentLinkId: s.payment_link_id } : {}),
    ...(s.checkout_session_id ? { checkoutSessionId: s.checkout_session_id } : {}),
  };
}

/** Permanent-webhook form: with fee, transactionId and type TRANSACTION. */
export function saleWebhookBody(s: SaleRow) {
  return {
    ...common(s),
    fee: s.system_fee,
    transactionId: s.id,
    type: 'TRANSACTION',
    metadata: s.metadata ?? {},
    refundedAmount: String(s.refunded_amount),
    paidAmount: s.paid_amount === null ? null : String(s.paid_amount),
    ...card(s),
    ...refusalAndRisk(s),
    ...recurrence(s),
    ...split(s),
    ...subscription(s),
    ...origin(s),
  };
}

/** Postback form: externalTransactionId instead of fee/transactionId/type. */
export function salePostbackBody(s: SaleRow) {
  return {
    ...common(s),
    externalTransactionId: s.external_transaction_id,
    ...card(s),
    ...refusalAndRisk(s),
    ...recurrence(s),
    ...split(s),
    ...subscription(s),
    ...origin(s),
  };
}
