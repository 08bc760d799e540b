import { Type } from 'typebox';
import { ListPage } from '../platform/http/common-schemas.js';
import { EVENT_NAMES } from '../webhooks/index.js';

export const Event = Type.Object(
  {
    id: Type.String({
      format: 'uuid',
      description: "The fact's event id: X-Service-Event-Id and webhook-id of its webhook deliveries",
    }),
    type: Type.Union(
      EVENT_NAMES.map((name) => Type.Literal(name)),
      { description: 'The event name' },
    ),
    createdAt: Type.String({ format: 'date-time' }),
    data: Type.Object(
      {},
      { additionalProperties: true, description: 'Exactly the body its webhook deliveries carry' },
    ),
  },
  {
    description: 'A notification fact of the account',
    examples: [
      {
        id: '01937c5e-8f2a-7b3c-9d4e-5f6a7b8c9d0e',
        type: 'withdrawal.completed',
        createdAt: '2026-11-25T13:47:03.120Z',
        data: {
          id: 311,
          uuid: '7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
          userId: 7,
          amount: '150.00',
          status: 'COMPLETED',
          type: 'WITHDRAWAL',
        },
      },
    ],
  },
);

export const EventsQuery = Type.Object({
  type: Type.Optional(Type.String({ description: 'One event name, or several separated by commas' })),
  since: Type.Optional(Type.String({ description: 'ISO 8601: events created at or after' })),
  until: Type.Optional(Type.String({ description: 'ISO 8601: events created at or before' })),
  limit: Type.Optional(Type.String({ description: '1 to 100, default 20' })),
  cursor: Type.Optional(Type.String({ description: 'nextCursor of the previous page' })),
});

export const EventPage = ListPage(Event);

export const EventIdParam = Type.Object({ id: Type.String({ description: 'Event id (uuid)' }) });

export const StreamQuery = Type.Object({
  type: Type.Optional(Type.String({ description: 'One event name, or several separated by commas' })),
});
