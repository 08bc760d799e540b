// The checkout module's front door: what app.ts, the workers and the sandbox use.
export { abandonCart, cartView, createCart } from './carts/carts.js';
export { abandonCheckoutCarts, CART_ABANDON_CHECK_EVERY_MS } from './carts/checkout-carts.js';
export { installCartRules } from './carts/rules.js';
export { checkoutRoutes } from './routes.js';
