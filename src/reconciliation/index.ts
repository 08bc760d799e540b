// The reconciliation module's front door: what the other modules and app.ts use of it (the CLI enters by cli.ts).
export {
  type Discrepancy,
  type DiscrepancyKind,
  recordPaymentDiscrepancies,
  type StoredDiscrepancy,
} from './discrepancies.data.js';
export { installReconciliationRules } from './owed-back.js';
export type { RunStatus, RunView } from './runs.data.js';
export { type DiscrepancyOfSale, Reconciliation } from './service.js';
export { MAX_SPAN_DAYS } from './window.js';
export { startReconciliation } from './worker.js';

// the discrepancies metric, registered with the module (read from its table at scrape time)
import './metrics.js';
