// The withdrawals module's front door: what the other modules, app.ts and the CLI use of it.
export { approvalRoutes } from './approval/routes.js';
export { startApprovalWorker } from './approval/worker.js';
export { cancelCashout } from './cancel.js';
export { cashoutCommands } from './cli.js';
export { WithdrawalCreator } from './creation/creator.js';
export { deleteExpiredKeys, KEY_CLEANUP_EVERY_MS } from './creation/idempotency.js';
export { getCashout } from './lookup.js';
export { withdrawalPanelRoutes } from './panel.routes.js';
export { type PayoutProviders, payoutProviders } from './payouts/providers.js';
export { payoutCallbackRoutes } from './payouts/routes.js';
export { handlePayoutCallback } from './payouts/service.js';
export { startOverdueCheck, startPayoutWorker } from './payouts/worker.js';
export { cashoutRoutes } from './routes.js';
export { WithdrawalLookup } from './schemas.js';
export { transition } from './state.js';
export { lookupView } from './views.js';
