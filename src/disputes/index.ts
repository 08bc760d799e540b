// The disputes module's front door: what the other modules and app.ts use of it.
export { Disputes, type OpenDispute, type Outcome, RESPOND_WITHIN_DAYS } from './disputes.js';
export { Dispute, OpenDisputeBody, OutcomeBody } from './schemas.js';
