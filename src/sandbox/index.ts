// The sandbox module's front door: what the other modules, app.ts and the CLI use of it.
export { sandboxCartRoutes } from './carts.routes.js';
export { sandboxCashoutRoutes } from './cashouts.routes.js';
export { sandboxPanelRoutes } from './panel.routes.js';
export { sandboxRecurrenceRoutes } from './recurrences.routes.js';
export { sandboxSalesRoutes } from './sales.routes.js';
