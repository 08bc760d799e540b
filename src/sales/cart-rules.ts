import type { Queryable } from '../platform/db/db.js';
import type { PublicId } from '../platform/ids/public-ids.js';
import type { SaleOrigin } from './data.js';
import type { Customer, SaleItem, SaleRow } from './types.js';

/**
 * What the sale lifecycle asks of a sale's cart. Carts are the checkout module's (`checkout/carts/`), which
 * depends on sales, so it answers through these rules, installed once per process with the methods' other
 * rules (`installCartRules`, through sale-rules.ts). Each runs in the sale's own transaction.
 */
export interface CartRules {
  /** The cart of a payer who gave their data on a checkout page, for the sale about to be opened. */
  cartOfCheckout(
    tx: Queryable,
    accountId: number,
    origin: SaleOrigin,
    sale: { customer: Customer; items: Omit<SaleItem, 'id'>[]; amount: number },
  ): Promise<number>;
  /** A sale of a cart reached PAGO for the first time. */
  salePaid(tx: Queryable, sale: SaleRow): Promise<void>;
  /** The id of the account's cart a request names (the sandbox's `cartId`), or null. */
  cartOf(tx: Queryable, accountId: number, ref: PublicId): Promise<number | null>;
}

let rules: CartRules | null = null;

export function setCartRules(installed: CartRules): void {
  rules = installed;
}

function installed(): CartRules {
  // a sale of a cart moved without the rules would leave its cart open for ever: refused, never silent
  if (!rules) throw new Error('cart rules are not installed (installCartRules from checkout/)');
  return rules;
}

/** The cart of a sale opened from a checkout page (a session's, or a link's payer's); null for any other sale. */
export async function cartOfCheckout(
  tx: Queryable,
  accountId: number,
  origin: SaleOrigin | undefined,
  sale: { customer: Customer; items: Omit<SaleItem, 'id'>[]; amount: number },
): Promise<number | null> {
  if (!origin?.recoveryUrl || !(origin.checkoutSessionId || origin.paymentLinkId)) return null;
  return installed().cartOfCheckout(tx, accountId, origin, sale);
}

/** A sale reached PAGO for the first time: its cart, if it has one, is converted or recovered. */
export async function onCartSalePaid(tx: Queryable, sale: SaleRow): Promise<void> {
  if (sale.cart_id !== null) await installed().salePaid(tx, sale);
}

/** The account's cart a request names, or null. */
export function cartOf(tx: Queryable, accountId: number, ref: PublicId): Promise<number | null> {
  return installed().cartOf(tx, accountId, ref);
}
