import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../platform/db/db.js';
import { validation } from '../platform/errors/app-error.js';
import { isUuid } from '../platform/ids/public-ids.js';
import {
  accountFactsBetween,
  positionBefore,
  positionOf,
  type StreamPosition,
  type StreamRow,
} from '../webhooks/index.js';
import type { EventFeed } from './feed.js';
import { STREAM_LIMITS, StreamWriter } from './stream-writer.js';

/** A comment line at least this often, so proxies and clients see the connection alive (at most 15 s apart, as the README says). */
const KEEP_ALIVE_MS = 15_000;
/** Backlog events read per query when a stream resumes. */
const BACKLOG_PAGE = 500;

export interface StreamRequest {
  accountId: number;
  types: string[] | null;
  lastEventId: string | null;
  /** Whether the key that opened the stream still would (false: the stream ends); else when to ask again. */
  stillAdmitted: () => Promise<false | number>;
  /** Tells of every change of keys, allow-lists and accounts (when to ask stillAdmitted again); returns how to stop. */
  watchAccess: (onChange: () => void) => () => void;
}

/** setTimeout's longest wait: a key expiring later is asked about again at the keep-alives anyway. */
const LONGEST_TIMER_MS = 2_147_483_647;

/** Open streams of this process, ended when it shuts down. */
export const openStreams = new Set<() => void>();

/**
 * Takes the reply over as a Server-Sent Events stream, the headers already set on it kept: `end` runs when the
 * client goes, or when the process shuts down (openStreams).
 */
export function startEventStream(
  reply: FastifyReply,
  end: () => void,
  cacheControl: 'no-cache' | 'no-store',
): void {
  openStreams.add(end);
  reply.raw.on('close', end);
  reply.hijack();
  reply.raw.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': cacheControl,
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
}

/**
 * GET /api/events/stream: Server-Sent Events of the account. With Last-Event-ID, every later event first
 * (oldest first), then live; the feed tells it each fact once it is final, so a stream that resumes from its
 * last id misses nothing and repeats nothing.
 */
export async function openStream(
  db: Db,
  feed: EventFeed,
  request: FastifyRequest,
  reply: FastifyReply,
  ask: StreamRequest,
): Promise<void> {
  const resumeFrom =
    ask.lastEventId === null ? null : await resumePosition(db, ask.accountId, ask.lastEventId);
  const wanted = (row: StreamRow) =>
    row.account_id === ask.accountId && (ask.types === null || ask.types.includes(row.event_type));

  const res = reply.raw;
  const out = new StreamWriter(res);
  let live = false;
  let ended = false;
  // live events that arrive while the backlog is sent, bounded like the socket's own buffer
  const waiting: StreamRow[] = [];
  let waitingBytes = 0;
  const { from, leave } = await feed.join((rows) => {
    const mine = rows.filter(wanted);
    if (mine.length === 0) return;
    if (live) {
      sendRows(out, mine);
      return;
    }
    waiting.push(...mine);
    for (const row of mine) waitingBytes += row.webhook_body.length;
    if (waitingBytes > STREAM_LIMITS.maxUnsentBytes) out.cut('bytes');
  });
  // the key that opened the stream is asked about again on every change of keys, lists or accounts, at its
  // expiry and at each keep-alive: revoked, expired or its source off the allow-list, the stream ends at once
  let expiry: NodeJS.Timeout | undefined;
  const recheck = async () => {
    if (ended) return;
    const until = await ask.stillAdmitted().catch(() => Date.now() + KEEP_ALIVE_MS);
    if (ended) return;
    if (until === false) {
      out.close(': access revoked\n\n');
      end();
      return;
    }
    clearTimeout(expiry);
    if (Number.isFinite(until)) {
      expiry = setTimeout(
        () => void recheck(),
        Math.min(Math.max(0, until - Date.now()) + 1, LONGEST_TIMER_MS),
      );
      expiry.unref();
    }
  };
  const unwatch = ask.watchAccess(() => void recheck());
  const keepAlive = setInterval(() => {
    out.write(': keep-alive\n\n');
    void recheck();
  }, KEEP_ALIVE_MS);
  keepAlive.unref();
  const end = () => {
    if (ended) return;
    ended = true;
    clearInterval(keepAlive);
    clearTimeout(expiry);
    unwatch();
    leave();
    openStreams.delete(end);
    out.close();
  };
  startEventStream(reply, end, 'no-cache');
  out.write(': connected\n\n');
  await recheck(); // its expiry's timer (and a change between its admission and now)
  try {
    if (resumeFrom) await sendBacklog(db, ask.accountId, resumeFrom, from, wanted, out);
  } catch (err) {
    request.log.warn({ err }, 'event stream backlog failed; the client resumes');
    end();
    return;
  }
  sendRows(out, waiting.splice(0));
  live = true;
}

/**
 * Each row's bytes made once, however many streams send it: every socket queues a reference to the same
 * buffer, so a fan-out to many slow streams holds one copy of an event, not one per stream.
 */
const encoded = new WeakMap<StreamRow, Buffer>();
const sendRows = (out: StreamWriter, rows: StreamRow[]) => {
  for (const row of rows) {
    let bytes = encoded.get(row);
    if (bytes === undefined) {
      bytes = Buffer.from(`id: ${row.id}\nevent: ${row.event_type}\ndata: ${row.webhook_body}\n\n`);
      encoded.set(row, bytes);
    }
    out.write(bytes);
  }
};

/** The events after `after`, oldest first, each written once the socket took the one before (its pace). */
async function sendBacklog(
  db: Db,
  accountId: number,
  after: StreamPosition,
  upTo: StreamPosition,
  wanted: (row: StreamRow) => boolean,
  out: StreamWriter,
): Promise<void> {
  let from = after;
  while (!out.isClosed) {
    const rows = await accountFactsBetween(db, accountId, from, upTo, BACKLOG_PAGE);
    for (const row of rows.filter(wanted)) {
      if (out.isClosed) return;
      sendRows(out, [row]);
      await out.drained();
    }
    const last = rows.at(-1);
    if (rows.length < BACKLOG_PAGE || !last) return;
    from = { txid: last.txid, id: last.id };
  }
}

/** Where a stream resumes: after the named event, or after the time a UUIDv7 id carries if it is gone. */
async function resumePosition(db: Db, accountId: number, raw: string): Promise<StreamPosition> {
  const id = raw.trim().toLowerCase();
  if (!isUuid(id)) throw validation('Last-Event-ID must be the id of an event this stream sent');
  const known = await positionOf(db, accountId, id);
  if (known) return known;
  if (id[14] !== '7') throw validation('Last-Event-ID names no event of this account');
  const ms = Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);
  return positionBefore(db, accountId, new Date(ms));
}
