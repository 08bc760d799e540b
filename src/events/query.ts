import { validation } from '../platform/errors/app-error.js';
import { dateBound, parseLimit } from '../platform/paging/pagination.js';
import type { EventFilter, EventRow } from '../webhooks/index.js';
import { isEventName } from '../webhooks/index.js';

/** An event as the API shows it; `data` is the stored body spliced in as the bytes its deliveries carried. */
export function eventJson(row: EventRow): string {
  return `{"id":${JSON.stringify(row.id)},"type":${JSON.stringify(row.event_type)},"createdAt":${JSON.stringify(row.created_at)},"data":${row.webhook_body}}`;
}

/** `type`: one event name or several separated by commas; an unknown one → 400. Absent → every type. */
export function parseTypes(raw: string | undefined): string[] | null {
  if (raw === undefined || raw === '') return null;
  const names = raw.split(',').map((n) => n.trim());
  const unknown = names.find((n) => !isEventName(n));
  if (unknown !== undefined)
    throw validation(`type: unknown event name ${JSON.stringify(unknown.slice(0, 60))}`);
  return [...new Set(names)];
}

interface Query {
  type?: string;
  since?: string;
  until?: string;
  limit?: string;
  cursor?: string;
}

/** The list's filters; a bad one → 400 naming it. */
export function parseEventsQuery(q: Query): {
  filter: EventFilter;
  cursorOf: (row: { at: string; id: string }) => string;
} {
  const limit = parseLimit(q.limit);
  const since = dateBound(q.since, 'since', 'start');
  const until = dateBound(q.until, 'until', 'end');
  const untilIsInstant = /T/.test(q.until ?? '');
  if (since !== null && until !== null && since > until) throw validation('since must not be after until');
  return {
    filter: {
      types: parseTypes(q.type),
      since,
      before: until !== null && !untilIsInstant ? until : null,
      until: until !== null && untilIsInstant ? until : null,
      after: q.cursor === undefined ? null : decodeCursor(q.cursor),
      limit,
    },
    cursorOf: (row) => Buffer.from(`${row.at}|${row.id}`).toString('base64url'),
  };
}

const CURSOR =
  /^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,6})?)\|([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

function decodeCursor(raw: string): { at: string; id: string } {
  const text = /^[A-Za-z0-9_-]{1,120}$/.test(raw) ? Buffer.from(raw, 'base64url').toString() : '';
  const m = CURSOR.exec(text);
  if (!m) throw validation('cursor is not one this list gave');
  return { at: m[1]!, id: m[2]! };
}
