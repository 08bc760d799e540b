// The disputes module's front door: what the other modules and app.ts use of it.

export {
  type ChargebackSource,
  CIELO_CHARGEBACK_CHANGE_TYPE,
  openNotifiedChargeback,
} from './card-notices.js';
export { CIELO_SECRET_HEADER, cardNoticeRoutes } from './card-notices.routes.js';
export {
  DEADLINE_CHECK_EVERY_MS,
  Disputes,
  type OpenDispute,
  type Outcome,
  RESPOND_WITHIN_DAYS,
} from './disputes.js';
export {
  MED_CHECK_EVERY_MS,
  MED_WINDOW_DAYS,
  NoInfractionList,
  readMedNotices,
  sendDefence,
} from './med-notices.js';
export { type OpsDispute, opsDisputes } from './ops.js';
export { disputeRoutes } from './routes.js';
export { installDisputeRules } from './rules.js';
export { Dispute, DisputePage, OpenDisputeBody, OutcomeBody } from './schemas.js';
