import type { Db, Queryable } from '../platform/db/db.js';
import { rowOrNull } from '../platform/sql/row-or-null.js';

/**
 * The Events API's reads of the notification facts (notification_events), served as they are, never copied: an
 * event's id is its fact's event id and its data the stored body every webhook delivery of it sent. The
 * webhook tests are facts of a webhook, not of the account: they are not events.
 */
export interface EventRow {
  id: string;
  event_type: string;
  /** created_at as ISO 8601 UTC with milliseconds, as events show it. */
  created_at: string;
  /** The exact text of the body webhook deliveries carry. */
  webhook_body: string;
}

/** Where a fact stands in the stream: its transaction, then its id (facts of one transaction). */
export interface StreamPosition {
  txid: string;
  id: string;
}

export interface StreamRow extends EventRow, StreamPosition {
  account_id: number;
}

// Stream order is (txid, id) with txid the xid8 column. The rows carry it as text (`txid::text AS txid`), and an
// unqualified ORDER BY txid would sort by that output column, as text ("100" before "99"): ordered by
// notification_events.txid, the number.
const COLUMNS = `id, event_type, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
  webhook_body`;

export interface EventFilter {
  types: string[] | null;
  since: string | null;
  /** An exclusive upper bound (`until` as given, or the day after a bare date). */
  before: string | null;
  /** Inclusive upper bound: `until` as a date-time, to the end of its millisecond (createdAt's precision). */
  until: string | null;
  /** After this (created_at exact text, id): the previous page's last event. */
  after: { at: string; id: string } | null;
  limit: number;
}

/** An account's events, newest first, through its (account_id, created_at, id) index. */
export function listEvents(
  q: Queryable,
  accountId: number,
  f: EventFilter,
): Promise<(EventRow & { at: string })[]> {
  return q.query(
    `SELECT ${COLUMNS}, (created_at AT TIME ZONE 'UTC')::text AS at
       FROM notification_events e
      WHERE account_id = $1 AND event_type <> 'webhook.test'
        AND ($2::text[] IS NULL OR event_type = ANY ($2::text[]))
        AND ($3::timestamptz IS NULL OR created_at >= date_trunc('milliseconds', $3::timestamptz))
        AND ($4::timestamptz IS NULL OR created_at < $4::timestamptz)
        -- the whole millisecond an event's createdAt shows: the clock keeps microseconds, the API milliseconds,
        -- and an event's own createdAt given back as until must include it
        AND ($5::timestamptz IS NULL
             OR created_at < date_trunc('milliseconds', $5::timestamptz) + interval '1 millisecond')
        AND ($6::timestamp IS NULL OR (e.created_at, e.id) < ($6::timestamp AT TIME ZONE 'UTC', $7::uuid))
      -- e.created_at: the bare name would be the output column (its text)
      ORDER BY e.created_at DESC, e.id DESC
      LIMIT $8`,
    [accountId, f.types, f.since, f.before, f.until, f.after?.at ?? null, f.after?.id ?? null, f.limit],
    // planned once per connection: an index walk whatever the filters (the account's, newest first)
    { prepare: 'events_page' },
  );
}

/** The `columns` of an account's event by its id (a test event is no event of the API); null when it has none. */
function accountEvent<T>(q: Queryable, columns: string, accountId: number, id: string): Promise<T | null> {
  return rowOrNull<T>(
    q,
    `SELECT ${columns} FROM notification_events
      WHERE id = $1 AND account_id = $2 AND event_type <> 'webhook.test'`,
    [id, accountId],
  );
}

export function findEvent(q: Queryable, accountId: number, id: string): Promise<EventRow | null> {
  return accountEvent<EventRow>(q, COLUMNS, accountId, id);
}

/** The stream position of an account's event, or null when it has none by that id. */
export function positionOf(q: Queryable, accountId: number, id: string): Promise<StreamPosition | null> {
  return accountEvent<StreamPosition>(q, 'txid::text AS txid, id', accountId, id);
}

/**
 * The first position a stream could still be missing: every fact of a transaction older than all those still
 * running is final. Events up to just below it are all there to be read. Transactions that pg_stat_activity
 * shows in another database of the cluster are left out: they cannot write this database's facts, and a long
 * one elsewhere must not hold every stream here back. A transaction it does not show (ended since the
 * snapshot, or hidden from this role) counts, so the bound is never past a fact that may still commit.
 */
export async function finalBound(q: Queryable): Promise<StreamPosition> {
  const [row] = await q.query<{ xmin: string }>(
    `WITH snap AS (SELECT pg_current_snapshot() AS s),
          elsewhere AS (
            SELECT backend_xid::text::bigint AS xid FROM pg_stat_activity
             WHERE backend_xid IS NOT NULL
               AND datid IS DISTINCT FROM (SELECT oid FROM pg_database WHERE datname = current_database()))
     SELECT coalesce(
              (SELECT min(x) FROM snap, pg_snapshot_xip(snap.s) AS x
                WHERE x::text::bigint % 4294967296 NOT IN (SELECT xid FROM elsewhere)),
              (SELECT pg_snapshot_xmax(s) FROM snap))::text AS xmin`,
  );
  return { txid: (BigInt(row!.xmin) - 1n).toString(), id: 'ffffffff-ffff-ffff-ffff-ffffffffffff' };
}

/**
 * Final facts after `from` in stream order (every account's, for the process-wide feed), at most `limit`,
 * with the bound they were read under: when fewer than `limit` come back, everything up to `bound` was read.
 */
export async function finalFactsAfter(
  q: Db,
  from: StreamPosition,
  limit: number,
): Promise<{ rows: StreamRow[]; bound: StreamPosition }> {
  return q.tx(async (tx) => {
    // one snapshot for the bound and the read (REPEATABLE READ), so nothing commits between them unseen
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    const bound = await finalBound(tx);
    const rows = await tx.query<StreamRow>(
      `SELECT ${COLUMNS}, txid::text AS txid, account_id FROM notification_events
        WHERE (txid, id) > ($1::xid8, $2::uuid) AND txid <= $3::xid8 AND event_type <> 'webhook.test'
        ORDER BY notification_events.txid, id
        LIMIT $4`,
      [from.txid, from.id, bound.txid, limit],
    );
    return { rows, bound };
  });
}

/** An account's events after `from` up to `to` (inclusive), in stream order: a resumed stream's backlog. */
export function accountFactsBetween(
  q: Queryable,
  accountId: number,
  from: StreamPosition,
  to: StreamPosition,
  limit: number,
): Promise<StreamRow[]> {
  return q.query<StreamRow>(
    `SELECT ${COLUMNS}, txid::text AS txid, account_id FROM notification_events
      WHERE (txid, id) > ($2::xid8, $3::uuid) AND (txid, id) <= ($4::xid8, $5::uuid)
        AND account_id = $1 AND event_type <> 'webhook.test'
      ORDER BY notification_events.txid, id
      LIMIT $6`,
    [accountId, from.txid, from.id, to.txid, to.id, limit],
  );
}

/**
 * The stream position just before the first event created after `at`: where to resume for a Last-Event-ID
 * that names no event any more (a UUIDv7 carries its creation time).
 */
export async function positionBefore(q: Queryable, accountId: number, at: Date): Promise<StreamPosition> {
  const [row] = await q.query<StreamPosition>(
    `SELECT txid::text AS txid, id FROM notification_events
      WHERE account_id = $1 AND created_at > $2 AND event_type <> 'webhook.test'
      ORDER BY notification_events.txid, id LIMIT 1`,
    [accountId, at],
  );
  if (!row) return finalBound(q);
  return { txid: row.txid, id: '00000000-0000-0000-0000-000000000000' };
}
