// The accounts module's front door: what the other modules and app.ts use of it (the CLI enters by cli.ts).

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
