// The sandbox module's front door: what the other modules and app.ts use of it (the CLI enters by cli.ts).
export { sandboxAnticipationRoutes } from './anticipations.routes.js';
export { sandboxCartRoutes } from './carts.routes.js';
export { sandboxCashoutRoutes } from './cashouts.routes.js';
export { sandboxDisputeRoutes } from './disputes.routes.js';
export { sandboxPanelRoutes } from './panel.routes.js';
export { sandboxRecurrenceRoutes } from './recurrences.routes.js';
export { sandboxSalesRoutes } from './sales.routes.js';
export { sandboxSubscriptionRoutes } from './subscriptions.routes.js';
