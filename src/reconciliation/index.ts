// The reconciliation module's front door: what the other modules and app.ts use of it (the CLI enters by cli.ts).
export { recordPaymentDiscrepancy } from './discrepancies.data.js';
export { startReconciliation } from './worker.js';
