// The webhooks module's front door: what the other modules and app.ts use of it (the CLI enters by cli.ts).
export type { WebhookSecret } from './crypto.js';
export { newestSealedSecret } from './data.js';
export { readBacklog } from './deliveries.data.js';
export {
  accountFactsBetween,
  type EventFilter,
  type EventRow,
  finalBound,
  finalFactsAfter,
  findEvent,
  listEvents,
  positionBefore,
  positionOf,
  type StreamPosition,
  type StreamRow,
} from './events.data.js';
export { EVENT_NAMES, type EventName, isEventName, SALE_EVENT_OF_STATUS } from './events.js';
export { NOTIFICATION_SCHEMAS, SaleRefund, webhookOperations } from './notification-schemas.js';
export {
  countWhenCommitted,
  factsInsert,
  type NotificationFact,
  recordNotification,
  recordNotifications,
} from './outbox.js';
export { ensureNotificationPartitions, pruneNotifications, RETENTION_EVERY_MS } from './retention.js';
export { webhookRoutes } from './routes.js';
export { Delivery, Webhook } from './schemas.js';
export { signWebhook } from './signing.js';
export { addressProblem, urlProblem } from './ssrf.js';
export { WebhookService } from './webhooks.js';
export { startNotificationWorkers } from './workers.js';
