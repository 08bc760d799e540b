// The auth module's front door: what the other modules and app.ts use of it (the CLI enters by cli.ts).

export { accountRefusal, type MoneyMove } from './account-gate.js';
export { listAllowedIps, replaceAllowedIps } from './allowed-ips.js';
export { apiKeyAuth, type KeyRecheck, keyRecheck, merchantOf, publicKeyAuth } from './api-key.hook.js';
export { clearAttempts, withAttempt } from './attempts.js';
export { AuthCache, type CachedAccount, notifyAuthChange } from './auth-cache.js';
export { credentialCreatorEmail, credentialName } from './credentials.data.js';
export { CredentialService } from './credentials.js';
export { apiKeyOrSession, requestAccount, requestMay } from './either-door.hook.js';
export { LastUseRecorder } from './last-use.js';
export { accountOf, panelSession, sessionOf, signedIn } from './panel-session.hook.js';
export {
  checkPassword,
  dummyPasswordHash,
  hashPassword,
  imitatePasswordCheck,
  verifyPassword,
} from './passwords.js';
export { rolesWith } from './roles.js';
export { requireDeclaredPermissions } from './route-permissions.hook.js';
export { authRoutes } from './routes.js';
export { SessionResponse } from './schemas.js';
export {
  AUTH_CLEANUP_EVERY_MS,
  confirmationRefusal,
  deleteExpiredAuthRows,
  endSessionsOnNewPassword,
  SessionService,
} from './sessions.js';
export { isCodeOfStep, matchingStep, newTotpSecret, TotpService } from './totp.js';
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
