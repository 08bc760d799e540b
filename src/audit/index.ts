// The audit module's front door: what the other modules and app.ts use of it (the CLI enters by cli.ts).
export { apiKeyActor, requestOrigin, userActor } from './actor.js';
export {
  type Actor,
  CLI_ACTOR,
  ensureAuditPartitions,
  recentAudit,
  recordAudit,
  recordAuditRows,
  recordForAccounts,
  SYSTEM_ACTOR,
} from './audit.data.js';
export { auditRoutes } from './routes.js';
