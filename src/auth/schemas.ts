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
  Type.Literal('sales.create'),
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

const SCOPES_TEXT =
  'read: GET routes only; charges: read, plus opening and cancelling charges, links and checkout sessions, ' +
  'tokenizing and capturing; full: every route, refunds, cashouts and dispute answers included. ' +
  'A user may make a key only within their own role (a developer: read or charges).';
const scopeOf = (description: string) =>
  Type.Union([Type.Literal('read'), Type.Literal('charges'), Type.Literal('full')], { description });
const Scope = scopeOf(SCOPES_TEXT);

export const CredentialBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 100 })),
  scope: Type.Optional(scopeOf(`${SCOPES_TEXT} Absent: the widest the creator may make.`)),
  expiresAt: Type.Optional(Type.String({ description: 'ISO 8601 date-time; the key is refused after it' })),
});
export const RollBody = Type.Object({
  graceHours: Type.Integer({
    minimum: 0,
    maximum: 168,
    description: 'How long the old pair keeps working (0: it stops at once)',
  }),
});

export const NarrowBody = Type.Object({ scope: Scope });

export const SessionResponse = Type.Object({ user: PanelUser, csrfToken: Type.String() });

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
  createdBy: Type.Union([Type.String(), Type.Null()], {
    description:
      "The e-mail of the team member who made the key (or last narrowed it); null for an operator's command, or a member since removed",
  }),
  needsReview: Type.Boolean({
    description:
      'The key is wider than what its creator may do now (demoted or removed); it keeps working until an owner or ' +
      'admin rolls, narrows or revokes it (false once it has expired: it opens nothing)',
  }),
});

export { IdParam, NoContent } from '../platform/http/common-schemas.js';
