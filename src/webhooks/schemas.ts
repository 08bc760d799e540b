import { Type } from 'typebox';

export { IdParam, NoContent } from '../platform/http/common-schemas.js';
export { EnvelopeErrorBody } from '../platform/http/error-schemas.js';

// Values are checked by the service, so that a bad URL or event name gets a message naming it.
export const CreateBody = Type.Object({
  webhookUrl: Type.Unknown(),
  events: Type.Unknown(),
});

export const UpdateBody = Type.Object({
  webhookUrl: Type.Optional(Type.Unknown()),
  events: Type.Optional(Type.Unknown()),
  status: Type.Optional(
    Type.Unknown({ description: '"active" re-enables a disabled webhook; "disabled" stops it' }),
  ),
});

const Status = Type.Union([Type.Literal('active'), Type.Literal('disabled')], {
  description: 'A disabled webhook gets no deliveries; facts meanwhile are logged SKIPPED (see recover)',
});

export const Webhook = Type.Object({
  id: Type.Integer(),
  webhookUrl: Type.String(),
  events: Type.Array(Type.String()),
  status: Status,
  disabledReason: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
});

export const CreatedWebhook = Type.Object({
  id: Type.Integer(),
  webhookUrl: Type.String(),
  events: Type.Array(Type.String()),
  status: Status,
  disabledReason: Type.Union([Type.String(), Type.Null()]),
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
  status: Type.Union([
    Type.Literal('PENDING'),
    Type.Literal('DELIVERED'),
    Type.Literal('FAILED'),
    Type.Literal('SKIPPED'),
  ]),
  createdAt: Type.String({ format: 'date-time' }),
  lastAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const DeliveriesQuery = Type.Object({
  limit: Type.Optional(Type.String({ description: 'A whole number from 1 to 100, default 20' })),
});

export const RotateBody = Type.Object({
  overlapHours: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 168,
      description: 'How long the old secret keeps signing (default 24)',
    }),
  ),
});
export const RotatedSecret = Type.Object({
  secret: Type.String({ description: 'The new secret, shown once' }),
});

export const TestQueued = Type.Object({
  eventId: Type.String({ description: 'Event id of the test delivery' }),
});

export const RecoverBody = Type.Object({
  since: Type.String({ description: 'ISO 8601; deliveries created at or after it' }),
  until: Type.Optional(Type.String({ description: 'ISO 8601; deliveries created before it (default: now)' })),
});
export const Recovered = Type.Object({ queued: Type.Integer({ description: 'Deliveries queued again' }) });

export const StatsQuery = Type.Object({
  hours: Type.Optional(Type.String({ description: 'A whole number from 1 to 720, default 24' })),
});
const MaybeNumber = Type.Union([Type.Number(), Type.Null()]);
export const Stats = Type.Object({
  delivered: Type.Integer(),
  failed: Type.Integer(),
  pending: Type.Integer(),
  successRate: Type.Union([Type.Number(), Type.Null()], {
    description: 'delivered / (delivered + failed), 0..1; null when none finished',
  }),
  p50Ms: Type.Union([Type.Number(), Type.Null()], { description: "Median of the receiver's response time" }),
  p95Ms: MaybeNumber,
});
