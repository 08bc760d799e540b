// The payment standards' front door: what the other modules, app.ts and the CLI use of it.
export { barcode, digitableLine, formatLine, MAX_BOLETO_CENTS } from './boleto-barcode.js';
export { brCode, hasValidCrc } from './brcode.js';
export { PixApiClient, PspError } from './pix-api-client.js';
export { qrModules, qrSvgDataUri } from './qr.js';
