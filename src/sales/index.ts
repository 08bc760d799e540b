// The sales module's front door: what the other modules and app.ts use of it (the CLI enters by cli.ts).

export { anticipableSales } from './anticipable.js';
export { type BlockedChargeInput, openBlockedSale } from './blocked.js';
export { abandonCart, cartView, createCart } from './carts/carts.js';
export { abandonCheckoutCarts, CART_ABANDON_CHECK_EVERY_MS, cartOfCheckout } from './carts/checkout-carts.js';
export { deleteExpiredSaleKeys, findSaleRow } from './charges.data.js';
export {
  CHARGE_EXPIRY_EVERY_MS,
  cancelCharge,
  cancelExpiredCharges,
  cancelOpenChargesOf,
  chargeWrites,
  createKeyedSale,
  createPixSale,
} from './charges.js';
export { ChargeBody, SplitRuleIn } from './charges.schemas.js';
export { captureLess, checkSplitOf, createSale } from './create.js';
export { type DailyTotal, dailyTotals, recentSaleBodies } from './daily-totals.js';
export { lockSalesById, type SaleOrigin, setRefusalReason, setSaleRisk } from './data.js';
export { type DisputedSale, lockSaleForDispute, moveDisputedSale, saleOfReceivedPix } from './disputed.js';
export { saleFees } from './fees.js';
export { checkSaleSize, normalizeCustomer, normalizePostbackUrl } from './input.js';
export { ownedSale, saleJson } from './lookup.js';
export {
  type OriginSale,
  openChargeOfPayer,
  originSale,
  paidSalesOfLinks,
  reservationsOfLink,
  saleOfOrigin,
  saleStatuses,
  salesOfSessions,
  salesOfSubscription,
} from './origins.js';
export { type PaymentAgain, recordPaidAmounts, setPaidAgainRule, setPaidAmountRule } from './paid-amount.js';
export { salesPanelRoutes } from './panel.routes.js';
export { BcbProcessor } from './processors/bcb/adapter.js';
export { checkDevolucoes, DEVOLUCAO_CHECK_EVERY_MS, type WarnLog } from './processors/bcb/devolucoes.js';
export { creditPix, type Pix, pixAmountDue, settleRefunds } from './processors/bcb/received.js';
export {
  type ChargeRecord,
  creditedPaidBetween,
  recordsOfPage,
  saleStatus,
} from './processors/bcb/received-records.js';
export { startBcb } from './processors/bcb/start.js';
export { bcbWebhookRoutes } from './processors/bcb/webhook.routes.js';
export { processorCallbackRoutes } from './processors/callback.routes.js';
export { CALLBACK_CLEANUP_EVERY_MS, deleteStaleCallbacks } from './processors/callbacks.js';
export {
  type PixChargeProcessor,
  type Refunder,
  RefundNotMade,
  type SaleProcessor,
} from './processors/processor.js';
export { pixProcessors } from './processors/registry.js';
export { SandboxProcessor } from './processors/sandbox.js';
export { type MandateCharge, MandateCharges } from './recurrences/mandate-charges.js';
export {
  createRecurrence,
  debitCycle,
  findRecurrence,
  type RecurrenceRow,
  recurrencesById,
} from './recurrences/recurrences.js';
export { FORGOTTEN_REFUND_CHECK_EVERY_MS, releaseForgottenRefunds } from './refunds/refunds.js';
export { type BoletoSales, type CardSalesPort, salesRoutes } from './routes.js';
export { createSandboxSale, type SandboxSaleInput } from './sandbox-sales.js';
export { CustomerIn, CustomerOut, IdPath, ItemIn, Sale, SaleStatusSchema } from './schemas.js';
export { startReserveWorker } from './settlement/reserve.js';
export { settleBatch } from './settlement/settle-batch.js';
export { SaleSettler } from './settlement/settler.js';
export { checkTransition, isOpen, type SaleStatus } from './settlement/status-machine.js';
export { applyMoves, moveSale } from './settlement/transition.js';
export { type Customer, PAYMENT_METHODS, type SaleItem, type SaleRow } from './types.js';
