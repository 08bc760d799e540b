// The recipients module's front door: a platform account's recipients (split payments).
export {
  accountRecipients,
  Recipients,
  type RecipientView,
  recipientView,
  resolveRecipients,
} from './recipients.js';
export { recipientRoutes } from './routes.js';
