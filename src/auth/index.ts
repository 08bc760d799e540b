// The auth module's front door: what the other modules and app.ts use of it (the CLI enters by cli.ts).
export { listAllowedIps, replaceAllowedIps } from './allowed-ips.js';
export { apiKeyAuth, merchantOf, publicKeyAuth } from './api-key.hook.js';
export { AuthCache } from './auth-cache.js';
export { credentialName } from './credentials.data.js';
export { CredentialService } from './credentials.js';
export { LastUseRecorder } from './last-use.js';
export { accountOf, panelSession, sessionOf } from './panel-session.hook.js';
export { checkPassword, hashPassword } from './passwords.js';
export { rolesWith } from './roles.js';
export { requireDeclaredPermissions } from './route-permissions.hook.js';
export { authRoutes } from './routes.js';
export {
  AUTH_CLEANUP_EVERY_MS,
  deleteExpiredAuthRows,
  endSessionsOnNewPassword,
  SessionService,
} from './sessions.js';
export { TotpService } from './totp.js';
export { AccessLinks } from './users/access.js';
export { activeUsersWithRole, newestSealedTwoFactorSecret } from './users/data.js';
export {
  clearTwoFactor,
  insertOwner,
  lockFirstOwner,
  ownerHasTwoFactor,
  setPasswordHash,
} from './users/owner.js';
export { teamRoutes } from './users/routes.js';
export { TeamService } from './users/team.js';
