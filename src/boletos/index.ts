// The boletos module's front door: what app.ts, the workers, the CLI and the checkout module (CPF/CNPJ checks) use.
export { BcbCobv, type CobvPsp, SandboxCobv } from './cobv.js';
export { isCnpj, isCpf } from './documents.js';
export { BoletoInputError, BoletoNotFound } from './errors.js';
export { boletoSales } from './http.js';
export { BoletoIssuer } from './issue.js';
export { installBoletoRules } from './paid-amount.js';
export { boletoRoutes } from './routes.js';
