// The withdrawals module's front door: what the other modules and app.ts use of it (the CLI enters by cli.ts).
export { approvalRoutes } from './approval/routes.js';
export { startApprovalWorker } from './approval/worker.js';
export { cancelWithdrawal } from './cancel.js';
export { createWithdrawalIn, WithdrawalCreator } from './creation/creator.js';
export { deleteExpiredKeys, KEY_CLEANUP_EVERY_MS } from './creation/idempotency.js';
export type { RecipientRef } from './creation/types.js';
export { accountOfWithdrawal, type WithdrawalRow } from './data.js';
export { MAX_CASHOUT_CENTS, MIN_CASHOUT_CENTS } from './fees.js';
export { ownedWithdrawal } from './lookup.js';
export {
  accountWithdrawals,
  OPS_WITHDRAWAL_QUEUES,
  type OpsWithdrawalQueue,
  opsWithdrawals,
} from './ops.data.js';
export { listWithdrawals } from './panel.data.js';
export { withdrawalPanelRoutes } from './panel.routes.js';
export { handlePayoutCallback } from './payouts/payouts.js';
export { type PayoutProviders, payoutProviders } from './payouts/providers.js';
export { payoutCallbackRoutes } from './payouts/routes.js';
export { decideSandboxCashout } from './payouts/sandbox-results.js';
export { startOverdueCheck, startPayoutWorker, startSandboxPayoutCompletion } from './payouts/worker.js';
export { PIX_KEY_TYPES, type PixKeyType, pixKeyProblem } from './pix-key.js';
export { decideHeld, holdUnsent, type ReviewDecision, releaseAccount } from './review.js';
export { cashoutRoutes, type PayoutRecipient } from './routes.js';
export { WithdrawalLookup, WithdrawalPage } from './schemas.js';
export { transition } from './state.js';
export { lookupView } from './views.js';
