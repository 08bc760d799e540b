// The accounts module's front door: what the other modules and app.ts use of it (the CLI enters by cli.ts).

export { type AccountProfile, accountSettingsView, createAccount, getAccount } from './accounts.js';
export {
  accountColumnSql,
  accountName,
  accountNames,
  cartRecoveryAccounts,
  payoutsHeldSql,
  type SaleFeeRates,
  saleFeeRates,
  withdrawalFee,
  withdrawalTermsSql,
} from './data.js';
export { type AccountProfileView, accountProfile, searchAccounts } from './profile.js';
export { accountRoutes } from './routes.js';
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
