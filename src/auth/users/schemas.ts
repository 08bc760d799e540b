import { Type } from 'typebox';
import { RoleName } from '../schemas.js';

export const TeamMember = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  email: Type.String({ format: 'email' }),
  role: RoleName,
  status: Type.Union([Type.Literal('active'), Type.Literal('invited')], {
    description: 'invited: the invitation has not been accepted yet',
  }),
  totpEnabled: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
  lastLoginAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const TeamList = Type.Object({ data: Type.Array(TeamMember) });

export const InvitationBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 320 }),
  name: Type.String({ minLength: 1, maxLength: 200 }),
  role: RoleName,
});

export const Invitation = Type.Object({
  id: Type.Integer(),
  email: Type.String({ format: 'email' }),
  name: Type.String(),
  role: RoleName,
  status: Type.Literal('invited'),
  expiresAt: Type.String({ format: 'date-time', description: 'The link works until then (72 hours)' }),
});

export const RoleBody = Type.Object({ role: RoleName });

export const UserIdParam = Type.Object({ id: Type.String({ description: 'The user id' }) });

export const TokenPasswordBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200, description: 'The token of the e-mailed link' }),
  password: Type.String({ minLength: 1, maxLength: 1024, description: 'At least 8 characters' }),
});

export const ResetRequestBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 320 }),
});
