// The operators module's front door: the payment company's staff (identities, sign-in, roles, their audit log).
export { type OperatorActor, recordOperatorAudit } from './audit.js';
export { OperatorInvitations } from './invitations.js';
export { OPERATOR_ROLES, type OperatorRole, roleCovers } from './roles.js';
export { operatorRoutes } from './routes.js';
export { operatorActor, operatorSession, requireDeclaredOpsRoles } from './session.hook.js';
export { OperatorSessions } from './sessions.js';
export { OperatorStaff } from './staff.js';
