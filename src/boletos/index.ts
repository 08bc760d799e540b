// The boletos module's front door: what the other modules and app.ts use of it (the CLI enters by cli.ts).
export { BcbCobv, type CobvPsp, SandboxCobv } from './cobv.js';
export { paidAtBank } from './data.js';
export { BoletoInputError } from './errors.js';
export { boletoMethod, boletoSales } from './http.js';
export { type BoletoAddressIn, BoletoIssuer, boletoAddress } from './issue.js';
export { installBoletoRules } from './paid-amount.js';
export { boletoRoutes } from './routes.js';
