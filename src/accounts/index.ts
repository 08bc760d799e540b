// The accounts module's front door: what the other modules and app.ts use of it (the CLI enters by cli.ts).

export {
  type AccountProfile,
  accountSettingsView,
  createAccount,
  getAccount,
  requireFeePlan,
} from './accounts.js';
export {
  accountColumnSql,
  accountName,
  accountNames,
  anticipationRate,
  cartRecoveryAccounts,
  payoutsHeldSql,
  type SaleFeeRates,
  saleFeeRates,
  withdrawalFee,
  withdrawalTermsSql,
} from './data.js';
export {
  assignFeePlan,
  createFeePlan,
  defaultFeePlanName,
  type FeePlanInput,
  type FeePlanView,
  findFeePlan,
  listFeePlans,
  setDefaultFeePlan,
  updateFeePlan,
} from './fee-plans.js';
export { feeRoutes } from './fees.routes.js';
export { type AccountProfileView, accountProfile, searchAccounts } from './profile.js';
export { accountRoutes } from './routes.js';
export { FeePlan, FeePlanBody, FeePlanList, FeePlanPatch } from './schemas.js';
export { settingOrInitial, settingSql } from './settings.js';
export {
  ACCOUNT_STATUSES,
  type AccountStanding,
  type AccountStatus,
  accountStanding,
  cardPaymentsPaused,
  changeStanding,
  isAccountStatus,
  pauseCardPayments,
  resumeCardPayments,
  type StatusChange,
} from './status.js';
