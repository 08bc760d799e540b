// The anticipations module's front door: anticipation of card receivables (simulate, request, decide, pay).
export { Anticipations, type AnticipationView } from './anticipations.js';
export { type AnticipationStatus, accountOfAnticipation, listAnticipations } from './data.js';
export { parseAsk } from './quote.js';
export { anticipationRoutes } from './routes.js';
export { Anticipation, AnticipationPage } from './schemas.js';
