// The sales module's front door: what the other modules and app.ts use of it (the CLI enters by cli.ts).

export { anticipableSales } from './anticipable.js';
export { type BlockedChargeInput, openBlockedSale, storeBlockedSale } from './blocked.js';
export { cartOfCheckout, setCartRules } from './cart-rules.js';
export {
  deleteExpiredSaleKeys,
  findSaleByProcessorRef,
  findSaleRow,
  salesByProcessorRefs,
} from './charges.data.js';
export {
  CHARGE_EXPIRY_EVERY_MS,
  type ChargeInput,
  cancelCharge,
  cancelExpiredCharges,
  cancelOpenChargesOf,
  cancelSessionCharges,
  chargeWrites,
  checkPixCharge,
  createKeyedSale,
  createPixSale,
  dueExpiry,
  releaseOrphan,
  SHARED_UNDER_LOAD,
} from './charges.js';
export { ChargeBody, SplitRuleIn } from './charges.schemas.js';
export {
  captureLess,
  checkCaptureLess,
  checkChargeSplit,
  checkChargesOf,
  createSale,
  type SaleDoor,
  type SaleRates,
} from './create.js';
export { type DailyTotal, dailyTotals, recentSaleBodies } from './daily-totals.js';
export {
  lockSale,
  lockSalesById,
  type SaleOrigin,
  saleOwnerAndStatus,
  saleStatus,
  saleUuids,
  setPaidAtNoLaterThan,
  setRefusalReason,
  setSaleRisk,
  setSaleSubscription,
  unclaimedPaidSaleOfRecurrence,
} from './data.js';
export {
  type DisputedSale,
  lockSaleForDispute,
  loseDisputedPart,
  moveDisputedSale,
  shareOfHeld,
} from './disputed.js';
export { saleFees } from './fees.js';
export { checkSaleSize, normalizeCustomer, normalizePostbackUrl, parseDate } from './input.js';
export { ownedSale, saleJson } from './lookup.js';
export {
  cartPaymentUnderWaySql,
  linkUses,
  type OriginSale,
  openChargeOfPayer,
  openPixOfCarts,
  originSale,
  reservationsOfLink,
  saleOfOrigin,
  saleStatuses,
  salesOfSessions,
  salesOfSubscription,
} from './origins.js';
export {
  amountDue,
  type PaymentAgain,
  recordAmountDueNow,
  recordClosedChargePayment,
  recordOwedBack,
  recordPaidAgain,
  recordPaidAmount,
  recordPaidAmounts,
  setOwedBackRecorder,
  setPaidAgainRule,
  setPaidAmountRule,
} from './paid-amount.js';
export { salesPanelRoutes } from './panel.routes.js';
export { processorCallbackRoutes } from './processors/callback.routes.js';
export {
  applyProcessorStatus,
  CALLBACK_CLEANUP_EVERY_MS,
  deleteStaleCallbacks,
} from './processors/callbacks.js';
export {
  type BoletoSales,
  type PaymentMethodPort,
  PaymentMethods,
  unavailable,
} from './processors/method.js';
export {
  type ChargeDetails,
  ChargeIdTaken,
  type ExpiredCharge,
  type PixCharge,
  type PixChargeProcessor,
  type PixDue,
  type Refunder,
  RefundNotMade,
  type SaleProcessor,
  type ScheduledCycle,
} from './processors/processor.js';
export { SANDBOX_PROCESSOR, SandboxProcessor } from './processors/sandbox.js';
export { refundInProgress, refundNotDone, setRefundUnderWayRule } from './refunds/refunds.data.js';
export {
  completeRefund,
  FORGOTTEN_REFUND_CHECK_EVERY_MS,
  failLocked,
  recordRefundMade,
  refundedInFull,
  releaseForgottenRefunds,
} from './refunds/refunds.js';
export { salesRoutes } from './routes.js';
export { checkSandboxSale, createSandboxSale, type SandboxSaleInput } from './sandbox-sales.js';
export { CustomerIn, CustomerOut, IdPath, ItemIn, Sale, SaleStatusSchema } from './schemas.js';
export { startReserveWorker } from './settlement/reserve.js';
export { setOpenDisputeRule, settleBatch } from './settlement/settle-batch.js';
export { SaleSettler } from './settlement/settler.js';
export { checkTransition, isClosedUnpaid, isOpen, type SaleStatus } from './settlement/status-machine.js';
export { applyMoves, moveSale } from './settlement/transition.js';
export { type Customer, PAYMENT_METHODS, type SaleItem, type SaleRow } from './types.js';
