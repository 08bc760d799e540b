// The accounts module's front door: what the other modules, app.ts and the CLI use of it.

export { getAccount } from './accounts.js';
export {
  accountColumnSql,
  accountName,
  cartRecoveryAccounts,
  type SaleFeeRates,
  saleFeeRates,
  withdrawalFee,
  withdrawalTermsSql,
} from './data.js';
export { accountRoutes } from './routes.js';
export { settingOrInitial, settingSql } from './settings.js';
