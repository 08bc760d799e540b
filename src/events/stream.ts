import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../platform/db/db.js';
import { validation } from '../platform/http/errors.js';
import { isUuid } from '../platform/http/public-ids.js';
import {
  accountFactsBetween,
  positionBefore,
  positionOf,
  type StreamPosition,
  type StreamRow,
} from './data.js';
import type { EventFeed } from './feed.js';

/** A comment line at least this often, so proxies and clients see the connection alive (Part 3: ≤ 15 s). */
const KEEP_ALIVE_MS = 15_000;
/** Backlog events read per query when a stream resumes. */
const BACKLOG_PAGE = 500;
/** Unsent bytes a slow client may leave in memory; past it the stream ends and the client resumes. */
const MAX_BUFFERED = 1024 * 1024;

export interface StreamRequest {
  accountId: number;
  types: string[] | null;
  lastEventId: string | null;
}

/** Open streams of this process, ended when it shuts down. */
export const openStreams = new Set<() => void>();

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
  let live = false;
  let ended = false;
  const waiting: StreamRow[] = [];
  const write = (rows: StreamRow[]) => {
    if (ended) return;
    let text = '';
    for (const row of rows) text += `id: ${row.id}\nevent: ${row.event_type}\ndata: ${row.webhook_body}\n\n`;
    if (text !== '') res.write(text);
    if (res.writableLength > MAX_BUFFERED) end();
  };
  const { from, leave } = await feed.join((rows) => {
    const mine = rows.filter(wanted);
    if (mine.length === 0) return;
    if (live) write(mine);
    else waiting.push(...mine);
  });
  const keepAlive = setInterval(() => {
    if (!ended) res.write(': keep-alive\n\n');
  }, KEEP_ALIVE_MS);
  keepAlive.unref();
  const end = () => {
    if (ended) return;
    ended = true;
    clearInterval(keepAlive);
    leave();
    openStreams.delete(end);
    res.end();
  };
  openStreams.add(end);
  res.on('close', end);

  reply.hijack();
  res.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write(': connected\n\n');
  try {
    if (resumeFrom) await sendBacklog(db, ask.accountId, resumeFrom, from, wanted, write, () => ended);
  } catch (err) {
    request.log.warn({ err }, 'event stream backlog failed; the client resumes');
    end();
    return;
  }
  write(waiting.splice(0));
  live = true;
}

async function sendBacklog(
  db: Db,
  accountId: number,
  after: StreamPosition,
  upTo: StreamPosition,
  wanted: (row: StreamRow) => boolean,
  write: (rows: StreamRow[]) => void,
  ended: () => boolean,
): Promise<void> {
  let from = after;
  while (!ended()) {
    const rows = await accountFactsBetween(db, accountId, from, upTo, BACKLOG_PAGE);
    write(rows.filter(wanted));
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
