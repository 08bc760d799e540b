// The cards module's front door: what the other modules and app.ts use of it (the CLI enters by cli.ts).
export type { Acquirer } from './acquirer.js';
export { acquirerFor } from './acquirers.js';
export { BRAND_NAMES, type CardBrand } from './brands.js';
export { CardRefunds } from './card-refunds.js';
export { CardSales, RISK_HOLD_EXPIRY_EVERY_MS } from './card-sales.js';
export { type AcquirerChargeback, cieloChargebackSource } from './chargebacks.js';
export { deleteExpiredCardTokens, newestSealedCardToken } from './data.js';
export { cardFingerprint } from './fingerprint.js';
export { cardMethod } from './http.js';
export { payerCards } from './payer-cards.js';
export { setRefusalRatio } from './refusal-watch.js';
export { cardRoutes } from './routes.js';
export { deleteSavedCard, type SavedCardView, saveCard, savedCardsOf } from './saved-cards.js';
export { CardToken, CardTokenBody } from './schemas.js';
export { CardTokens } from './tokens.js';
