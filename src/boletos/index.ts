// The boletos module's front door: what the other modules, app.ts and the CLI use of it.
export { BcbCobv, type CobvPsp, SandboxCobv } from './cobv.js';
export { isCnpj, isCpf } from './documents.js';
export { BoletoInputError, BoletoNotFound } from './errors.js';
export { boletoSales, mapBoletoErrors } from './http.js';
export { type BoletoAddressIn, BoletoIssuer } from './issue.js';
export { installBoletoRules } from './paid-amount.js';
export { boletoRoutes } from './routes.js';
export { addDays } from './terms.js';
