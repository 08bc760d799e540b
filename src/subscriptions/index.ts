// The subscriptions module's front door: plans, subscriptions and the scheduler that bills their periods.
export { BILLING_EVERY_MS, type PeriodChargers, SubscriptionBiller } from './billing.js';
export { billingPageRoutes } from './billing.routes.js';
export { CustomerPage } from './customer-page.js';
export { subscriptionRoutes } from './routes.js';
export { Subscription } from './schemas.js';
export { Subscriptions } from './subscriptions.js';
