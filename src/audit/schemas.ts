import { Type } from 'typebox';
import { ListPage, PageParams } from '../platform/http/common-schemas.js';

export const AuditEntry = Type.Object({
  id: Type.Integer(),
  at: Type.String({ format: 'date-time' }),
  actor: Type.Object({
    type: Type.Union([Type.Literal('user'), Type.Literal('api_key'), Type.Literal('operator')]),
    id: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The account id for a user, the credential id for an API key, null for the operator',
    }),
    label: Type.String({ description: 'E-mail, public key, or the operator tool' }),
  }),
  action: Type.String({ description: 'e.g. login.succeeded, credential.rolled, withdrawal.created' }),
  target: Type.Union([Type.String(), Type.Null()], { description: 'e.g. credential:12, webhook:3' }),
  ip: Type.Union([Type.String(), Type.Null()]),
  userAgent: Type.Union([Type.String(), Type.Null()]),
});
export const AuditPage = ListPage(AuditEntry);
export const AuditQuery = Type.Object(PageParams);
