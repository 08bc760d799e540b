// The recipients module's front door: a platform account's recipients (split payments).

export { recipientNames } from './names.js';
export { recipientPanelRoutes } from './panel.routes.js';
export {
  AUTO_PAYOUT_CHECK_EVERY_MS,
  type AutoPayoutResult,
  duePeriods,
  runAutomaticPayouts,
} from './payouts.js';
export {
  accountRecipients,
  Recipients,
  type RecipientView,
  recipientView,
  resolveRecipients,
} from './recipients.js';
export { recipientRoutes } from './routes.js';
