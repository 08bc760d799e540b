import { Type } from 'typebox';

export { IdParam, NoContent } from '../auth/schemas.js';
export { ShapeA } from '../platform/error-schemas.js';

// Values are checked by the service, so that a bad URL or event name gets a message naming it.
export const CreateBody = Type.Object({
  webhookUrl: Type.Unknown(),
  events: Type.Unknown(),
});

export const UpdateBody = Type.Object({
  webhookUrl: Type.Optional(Type.Unknown()),
  events: Type.Optional(Type.Unknown()),
});

export const Webhook = Type.Object({
  id: Type.Integer(),
  webhookUrl: Type.String(),
  events: Type.Array(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
});

export const CreatedWebhook = Type.Object({
  id: Type.Integer(),
  webhookUrl: Type.String(),
  events: Type.Array(Type.String()),
  secret: Type.String({ description: 'whsec_… — shown only in this response' }),
  createdAt: Type.String({ format: 'date-time' }),
});

export const Delivery = Type.Object({
  id: Type.Integer(),
  eventId: Type.String(),
  event: Type.String(),
  payload: Type.Unknown({ description: 'The exact JSON body sent' }),
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  attempts: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([Type.Literal('PENDING'), Type.Literal('DELIVERED'), Type.Literal('FAILED')]),
  createdAt: Type.String({ format: 'date-time' }),
  lastAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const DeliveriesQuery = Type.Object({
  limit: Type.Optional(Type.String({ pattern: '^(100|[1-9][0-9]?)$', description: '1..100, default 20' })),
});
