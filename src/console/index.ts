// The operators' console's front door: its routes (/api/ops/…) and what operators do to accounts.
export { ConsoleActions, type HeldCardSales } from './actions.js';
export { consoleRoutes } from './routes.js';
