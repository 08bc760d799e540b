import type { SaleRow } from './types.js';

/** The spec's Sale object (GET /api/transactions/{id}), keys in the spec's table order. */
export function saleView(s: SaleRow) {
  return {
    id: s.id,
    uuid: s.uuid,
    status: s.status,
    amount: s.amount,
    netAmount: s.net_amount,
    systemFee: s.system_fee,
    reserveAmount: s.reserve_amount,
    paymentMethod: s.payment_method,
    date: s.created_at.toISOString(),
    completedAt: s.completed_at ? s.completed_at.toISOString() : null,
    customer: {
      name: s.customer.name,
      email: s.customer.email,
      document: s.customer.document,
      phone: s.customer.phone,
    },
    items: s.items.map((i) => ({
      id: i.id,
      title: i.title,
      unitPrice: i.unitPrice,
      quantity: i.quantity,
      tangible: i.tangible,
    })),
    pixKey: s.pix_key,
    cardLastFour: s.card_last_four,
    cardBrand: s.card_brand,
    boletoCode: s.boleto_code,
    externalTransactionId: s.external_transaction_id,
    installments: s.installments,
    shipping: s.shipping,
    ...(s.id_rec !== null ? { idRec: s.id_rec, contrato: s.contrato ?? '' } : {}),
  };
}

export type SaleView = ReturnType<typeof saleView>;
