import { Type } from 'typebox';
import { PERMISSIONS } from './roles.js';

export const RoleName = Type.Union([
  Type.Literal('owner'),
  Type.Literal('admin'),
  Type.Literal('finance'),
  Type.Literal('developer'),
  Type.Literal('viewer'),
]);
const PermissionName = Type.Union([
  Type.Literal('self'),
  Type.Literal('money.view'),
  Type.Literal('withdrawals.create'),
  Type.Literal('disputes.respond'),
  Type.Literal('integrations'),
  Type.Literal('team'),
  Type.Literal('audit'),
]);

export const PanelUser = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  email: Type.String(),
  role: RoleName,
  totpEnabled: Type.Boolean({ description: 'Two-factor login is on' }),
  permissions: Type.Array(PermissionName, {
    description: `What the role may do: ${Object.entries(PERMISSIONS)
      .map(([p, what]) => `${p} (${what})`)
      .join('; ')}`,
  }),
});

export const LoginBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 320 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
  totpCode: Type.Optional(
    Type.String({ maxLength: 16, description: 'The 6-digit code, when two-factor login is on' }),
  ),
});

export const TotpSetup = Type.Object({
  secret: Type.String({ description: 'Base32 secret (shown once; add it to an authenticator app)' }),
  otpauthUrl: Type.String({ description: 'otpauth://totp/… URL (RFC 6238, SHA-1, 6 digits, 30 s)' }),
});
export const TotpCodeBody = Type.Object({
  code: Type.String({ maxLength: 16, description: '6-digit code' }),
});

export const CredentialBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 100 })),
  scope: Type.Optional(Type.Union([Type.Literal('full'), Type.Literal('read')])),
  expiresAt: Type.Optional(Type.String({ description: 'ISO 8601 date-time; the key is refused after it' })),
});
export const RollBody = Type.Object({
  graceHours: Type.Integer({
    minimum: 0,
    maximum: 168,
    description: 'How long the old pair keeps working (0: it stops at once)',
  }),
});

export const SessionResponse = Type.Object({ user: PanelUser, csrfToken: Type.String() });

const Scope = Type.Union([Type.Literal('full'), Type.Literal('read')], {
  description: 'full: every route; read: GET routes only',
});
const MaybeTime = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const IssuedCredential = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  scope: Scope,
  publicKey: Type.String(),
  privateKey: Type.String({ description: 'Shown only in this response' }),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: MaybeTime,
});

export const CredentialView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  scope: Scope,
  publicKey: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: MaybeTime,
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'May lag by up to a minute',
  }),
  lastUsedIp: Type.Union([Type.String(), Type.Null()]),
});

export { IdParam, NoContent } from '../platform/http/common-schemas.js';
