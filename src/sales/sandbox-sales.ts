import type { Db } from '../platform/db/db.js';
import { validation } from '../platform/errors/app-error.js';
import { parsePublicId } from '../platform/ids/public-ids.js';
import { cartOf } from './cart-rules.js';
import { createSale } from './create.js';
import { checkSaleSize, normalizeCustomer, normalizePostbackUrl } from './input.js';
import type { SaleProcessor } from './processors/processor.js';
import type { Customer, PaymentMethod, SaleItem, SaleRow } from './types.js';

export interface SandboxSaleInput {
  amount: number;
  paymentMethod: Exclude<PaymentMethod, 'PIX_AUTOMATICO'>;
  customer: Customer;
  items: Omit<SaleItem, 'id'>[];
  shipping?: Record<string, unknown> | null;
  postbackUrl?: string;
  installments?: number;
  cartId?: number | string;
  card?: { brand: string; lastFour: string };
  split?: unknown;
}

/** A sandbox sale's own checks (its fields, its size, its buyer), nothing read or written. */
export function checkSandboxSale(input: SandboxSaleInput): {
  customer: Customer;
  postbackUrl: string | null;
} {
  const method = input.paymentMethod;
  const isCard = method === 'CREDIT_CARD' || method === 'DEBIT_CARD';
  if (input.installments !== undefined && method !== 'CREDIT_CARD') {
    throw validation('installments apply to CREDIT_CARD sales only');
  }
  if (input.card !== undefined && !isCard) throw validation('card applies to card sales only');
  // a split is a buyer's charge's (PIX, boleto, card): no TRANSFER takes one, as POST /api/transactions takes none
  if (input.split !== undefined && input.split !== null && method === 'TRANSFER') {
    throw validation('split applies to PIX, BOLETO and card sales, not TRANSFER');
  }
  checkSaleSize(input);
  return {
    customer: normalizeCustomer(input.customer),
    postbackUrl: normalizePostbackUrl(input.postbackUrl),
  };
}

/** The sandbox processor opens a charge: a PENDENTE sale, notified as sale.pending. */
export async function createSandboxSale(
  db: Db,
  processor: SaleProcessor,
  accountId: number,
  input: SandboxSaleInput,
): Promise<SaleRow> {
  const method = input.paymentMethod;
  const { customer, postbackUrl } = checkSandboxSale(input);
  return db.tx(async (tx) => {
    let cartId: number | null = null;
    if (input.cartId !== undefined) {
      const ref = parsePublicId(String(input.cartId));
      cartId = ref ? await cartOf(tx, accountId, ref) : null;
      if (cartId === null) throw validation(`cartId ${input.cartId} is not a cart of this account`);
    }
    const details = processor.charge({
      paymentMethod: method,
      amount: input.amount,
      ...(input.card ? { card: input.card } : {}),
    });
    return createSale(
      tx,
      {
        accountId,
        amount: input.amount,
        paymentMethod: method,
        customer,
        items: input.items,
        shipping: input.shipping ?? null,
        installments: method === 'CREDIT_CARD' ? (input.installments ?? 1) : null,
        processor: processor.name,
        postbackUrl,
        cartId,
        recurrence: null,
        split: input.split,
        ...details,
      },
      // an account waiting for review tries its integration here (a suspended one may not)
      { notifyPending: true, door: 'sandbox' },
    );
  });
}
