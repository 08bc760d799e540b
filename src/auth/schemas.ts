import { Type } from 'typebox';

export const PanelUser = Type.Object({ id: Type.Integer(), name: Type.String(), email: Type.String() });

export const LoginBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 320 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});

export const SessionResponse = Type.Object({ user: PanelUser, csrfToken: Type.String() });

export const IssuedCredential = Type.Object({
  id: Type.Integer(),
  publicKey: Type.String(),
  privateKey: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
});

export const CredentialView = Type.Object({
  id: Type.Integer(),
  publicKey: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const IdParam = Type.Object({ id: Type.String({ pattern: '^[1-9][0-9]{0,15}$' }) });

export const NoContent = Type.Null({ description: 'No content' });
