import { setCartRules } from '../../sales/index.js';
import { findCart, onSalePaid } from './carts.js';
import { checkoutCart } from './checkout-carts.js';

/**
 * The sale lifecycle's cart rules, answered by this module (sales/cart-rules.ts): installed once per process,
 * with the payment methods' rules (runtime.ts, the CLI).
 */
export function installCartRules(): void {
  setCartRules({
    cartOfCheckout: checkoutCart,
    salePaid: onSalePaid,
    cartOf: async (tx, accountId, ref) => (await findCart(tx, accountId, ref))?.id ?? null,
  });
}
