// The checkout module's front door: what app.ts uses.
export { type CheckoutDeps, checkoutRoutes } from './routes.js';
