// The payment standards' front door: what the other modules and app.ts use of it (the CLI enters by cli.ts).
export { barcode, digitableLine, formatLine, MAX_BOLETO_CENTS } from './boleto-barcode.js';
export { brCode, hasValidCrc } from './brcode.js';
export { isBusinessDay, nextBusinessDay } from './business-days.js';
export { PixApiClient, PspError } from './pix-api-client.js';
export { qrModules, qrSvgDataUri } from './qr.js';
