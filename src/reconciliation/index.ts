// The reconciliation module's front door: what the other modules and app.ts use of it (the CLI enters by cli.ts).
export { type Discrepancy, recordPaymentDiscrepancies } from './discrepancies.data.js';
export { installReconciliationRules } from './owed-back.js';
export { Reconciliation } from './service.js';
export { startReconciliation } from './worker.js';

// the discrepancies metric, registered with the module (read from its table at scrape time)
import './metrics.js';
