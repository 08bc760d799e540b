// The ledger module's front door: what the other modules, app.ts and the CLI use of it.
export { balanceStatement, entriesInsert } from './batch-entries.js';
export {
  availableBalanceSql,
  ensureMerchantLedger,
  type JournalEntry,
  type Posting,
  postBucketTransfers,
  postEntry,
} from './ledger.js';
export { ledgerPanelRoutes } from './panel.routes.js';
export { Balance, ledgerRoutes } from './routes.js';
