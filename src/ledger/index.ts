// The ledger module's front door: what the other modules and app.ts use of it (the CLI enters by cli.ts).
export {
  holdInstallments,
  installmentsOf,
  lockHeldInstallments,
  type OpenInstallment,
  openInstallments,
  releaseInstallments,
  salesOfAnticipation,
  settleAnticipated,
} from './anticipated.js';
export { balanceStatement, entriesInsert } from './batch-entries.js';
export {
  availableBalanceSql,
  type BalanceHolder,
  type Bucket,
  ensureLedgerPartitions,
  ensureMerchantLedger,
  ensureRecipientLedger,
  getBalance,
  type JournalEntry,
  lockBalances,
  lockRecipientAvailable,
  type Posting,
  postBucketTransfers,
  postEntry,
  type RecipientBalance,
  recipientAvailableBalanceSql,
  recipientBalances,
  reversalOf,
} from './ledger.js';
export { ledgerPanelRoutes } from './panel.routes.js';
export {
  type ReceivableHolder,
  type ReceivableShare,
  type ReceivableTake,
  receivableBalance,
  receivablesBetween,
  restoreSaleReceivables,
  scheduleReceivables,
  setCardSettlementDays,
  settleDueReceivables,
  takeSaleReceivables,
} from './receivables.js';
export { type RecipientReceivable, recipientReceivables } from './recipient-receivables.js';
export { type RevenueDay, revenueByDay } from './revenue.js';
export { Balance, ledgerRoutes } from './routes.js';
export { StatementPage, StatementQuery } from './schemas.js';
export { Statement, type StatementOwner } from './statement.js';
