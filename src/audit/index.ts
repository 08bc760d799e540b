// The audit module's front door: what the other modules, app.ts and the CLI use of it.
export { apiKeyActor, requestOrigin, userActor } from './actor.js';
export {
  type Actor,
  CLI_ACTOR,
  recentAudit,
  recordAudit,
  recordAuditRows,
  recordForAccounts,
  SYSTEM_ACTOR,
} from './audit.data.js';
export { auditRoutes } from './routes.js';
