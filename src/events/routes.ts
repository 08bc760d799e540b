import { Type } from 'typebox';
import { type KeyRecheck, merchantOf } from '../auth/index.js';
import type { Db } from '../platform/db/db.js';
import { notFound } from '../platform/errors/app-error.js';
import { EnvelopeErrorBody, IpAccessErrorBody, KEY_ROUTE } from '../platform/http/error-schemas.js';
import { sendJsonText } from '../platform/http/json-reply.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { isUuid } from '../platform/ids/public-ids.js';
import { findEvent } from '../webhooks/index.js';
import { eventPages } from './coalesced-pages.js';
import type { EventFeed } from './feed.js';
import { eventJson, parseEventsQuery, parseTypes } from './query.js';
import { Event, EventIdParam, EventPage, EventsQuery, StreamQuery } from './schemas.js';
import { openStream } from './stream.js';

const errors = {
  400: EnvelopeErrorBody,
  401: EnvelopeErrorBody,
  403: IpAccessErrorBody,
  500: EnvelopeErrorBody,
};

/** The account's events: a page, one by id, and the live stream (errors in the envelope body, decisions.md "Events"). */
export async function eventRoutes(
  app: Http,
  deps: { db: Db; apiKey: AuthHook; keyRecheck: KeyRecheck; feed: EventFeed },
): Promise<void> {
  const pageOf = eventPages(deps.db);
  app.get(
    '/api/events',
    {
      config: { errorShape: 'envelope' },
      onRequest: deps.apiKey,
      schema: {
        ...KEY_ROUTE,
        summary: "The account's events, newest first",
        querystring: EventsQuery,
        response: { 200: EventPage, ...errors },
      },
    },
    async (request, reply) => {
      const { filter, cursorOf } = parseEventsQuery(request.query);
      const rows = await pageOf(merchantOf(request).accountId, { ...filter, limit: filter.limit + 1 });
      const page = rows.slice(0, filter.limit);
      const last = page.at(-1);
      const next = rows.length > filter.limit && last ? JSON.stringify(cursorOf(last)) : 'null';
      return sendJsonText(reply, 200, `{"data":[${page.map(eventJson).join(',')}],"nextCursor":${next}}`);
    },
  );

  app.get(
    '/api/events/stream',
    {
      config: { errorShape: 'envelope' },
      onRequest: deps.apiKey,
      schema: {
        ...KEY_ROUTE,
        summary: 'Server-Sent Events: every new event of the account, resumed after Last-Event-ID',
        querystring: StreamQuery,
        headers: Type.Object({
          'last-event-id': Type.Optional(
            Type.String({
              description:
                'The id of the last event received: every later event is sent first, oldest first (an id the account has no event of → 400)',
            }),
          ),
        }),
        response: {
          200: {
            description:
              'An event stream: each event as `id: <event id>`, `event: <type>` and `data: <its notification body, as webhooks receive it>` lines, and a `: keep-alive` comment every 15 s',
            content: {
              'text/event-stream': {
                schema: { type: 'string' },
                example:
                  'id: 3f0c2a9e-8b1d-4c5e-9f7a-1b2c3d4e5f60\nevent: sale.paid\ndata: {"id":1042,"uuid":"0b6f1c3e-5a8e-4c6a-9d1b-2f6f0d3a8e41","status":"PAGO",…}\n\n',
              },
            },
          },
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const types = parseTypes(request.query.type);
      const lastEventId = request.headers['last-event-id'];
      await openStream(deps.db, deps.feed, request, reply, {
        accountId: merchantOf(request).accountId,
        types,
        lastEventId: typeof lastEventId === 'string' && lastEventId !== '' ? lastEventId : null,
        stillAdmitted: () => deps.keyRecheck.stillAdmits(request),
        watchAccess: (onChange) => deps.keyRecheck.watch(onChange),
      });
    },
  );

  app.get(
    '/api/events/:id',
    {
      config: { errorShape: 'envelope', errors: ['NOT_FOUND'] },
      onRequest: deps.apiKey,
      schema: {
        ...KEY_ROUTE,
        summary: 'One event of the account',
        params: EventIdParam,
        response: { 200: Event, 404: EnvelopeErrorBody, ...errors },
      },
    },
    async (request, reply) => {
      const id = request.params.id.toLowerCase();
      const row = isUuid(id) ? await findEvent(deps.db, merchantOf(request).accountId, id) : null;
      if (!row) throw notFound('Event not found');
      return sendJsonText(reply, 200, eventJson(row));
    },
  );
}
