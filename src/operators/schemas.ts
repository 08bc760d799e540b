import { Type } from 'typebox';

export const OperatorRoleName = Type.Union(
  [Type.Literal('support'), Type.Literal('risk'), Type.Literal('finance'), Type.Literal('admin')],
  { description: 'support < risk < finance < admin; each includes the one before' },
);

export const OperatorIdentity = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  role: OperatorRoleName,
});

export const OperatorLoginBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 320 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
  totpCode: Type.Optional(
    Type.String({ maxLength: 16, description: 'The 6-digit code (every operator has one)' }),
  ),
});
export const OperatorSignedIn = Type.Object({ operator: OperatorIdentity, csrfToken: Type.String() });

export const AcceptInvitationBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});
export const TotpEnrolment = Type.Object({
  totpSecret: Type.String({ description: 'Base32 secret, shown once: add it to an authenticator app' }),
  otpauthUrl: Type.String({ description: 'otpauth://totp/… URL (RFC 6238, SHA-1, 6 digits, 30 s)' }),
});
export const EnableTotpBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200 }),
  code: Type.String({ maxLength: 16, description: 'A 6-digit code of the authenticator' }),
});

export const OperatorView = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  role: OperatorRoleName,
  status: Type.Union([
    Type.Literal('invited'),
    Type.Literal('enrolling'),
    Type.Literal('active'),
    Type.Literal('disabled'),
  ]),
  createdAt: Type.String({ format: 'date-time' }),
  lastLoginAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export const OperatorList = Type.Object({ data: Type.Array(OperatorView) });
export const InviteOperatorBody = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 320 }),
  role: OperatorRoleName,
});
export const InvitedOperator = Type.Object({
  operator: OperatorView,
  invitationSent: Type.Literal(true, {
    description:
      'The one-time invitation link was e-mailed to the operator (only there: the console never sees it)',
  }),
});
export const ChangeOperatorBody = Type.Object({ role: OperatorRoleName });
export const OperatorChanged = Type.Object({ operator: OperatorView });
export const OperatorIdPath = Type.Object({ id: Type.String({ pattern: '^[1-9][0-9]{0,15}$' }) });

export const OperatorAuditQuery = Type.Object({
  cursor: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
  accountId: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,15}$' })),
});
export const OperatorAuditPage = Type.Object({
  data: Type.Array(
    Type.Object({
      id: Type.Integer(),
      at: Type.String({ format: 'date-time' }),
      operatorId: Type.Union([Type.Integer(), Type.Null()]),
      operatorEmail: Type.String(),
      action: Type.String(),
      accountId: Type.Union([Type.Integer(), Type.Null()]),
      accountName: Type.Optional(Type.String({ description: "The account's name (in the console's lists)" })),
      target: Type.Union([Type.String(), Type.Null()]),
      before: Type.Unknown(),
      after: Type.Unknown(),
      ip: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});
