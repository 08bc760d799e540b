// The reconciliation module's front door: what the other modules, app.ts and the CLI use of it.
export { recordPaymentDiscrepancy } from './discrepancies.data.js';
export { startReconciliation } from './worker.js';
