// The Pix module's front door: the API Pix adapter (cob, cobv, cobr), received Pix, devoluções and Pix
// Automático's recurrences, for app.ts, the workers and the modules that read what a Pix paid.

export { BcbProcessor } from './adapter.js';
export { MandateCharges } from './automatico/mandate-charges.js';
export {
  type CycleRefusal,
  createRecurrence,
  debitCycle,
  findRecurrence,
  type RecurrenceRow,
  recurrencesById,
} from './automatico/recurrences.js';
export {
  checkDevolucoes,
  DEVOLUCAO_CHECK_EVERY_MS,
  installPixRules,
  setMedDevolucaoRule,
  type WarnLog,
} from './devolucoes.js';
export { pixMethod } from './method.js';
export { pixProcessors } from './processors.js';
export { creditPix, type Pix, pixAmountDue, settleRefunds } from './received.js';
export {
  type ChargeRecord,
  creditedPaidBetween,
  recordsOfPage,
  saleOfReceivedPix,
} from './received-records.js';
export { startBcb } from './start.js';
export { BCB_PROCESSOR } from './txid.js';
export { bcbWebhookRoutes } from './webhook.routes.js';
