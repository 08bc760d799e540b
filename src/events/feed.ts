import type { Logger } from 'pino';
import type { Db } from '../platform/db/db.js';
import type { OutboxSignal } from '../platform/db/outbox-signal.js';
import { isDatabaseUnavailable } from '../platform/db/unavailable.js';
import { finalBound, finalFactsAfter, type StreamPosition, type StreamRow } from '../webhooks/index.js';

/** How often the feed looks for facts other processes committed, while any stream is open here. */
const POLL_MS = 100;
/** Facts one read takes at most; a larger backlog is read again at once. */
const READ_LIMIT = 2000;

export type FeedListener = (rows: StreamRow[]) => void;

/**
 * One reader of new facts per process, shared by every open event stream: streams hold no database
 * connection of their own. It reads the facts that became final (stream order: transaction, then id) and
 * hands each batch to every listener, which keeps its own account's. It reads only while a stream is open,
 * at once when this process commits facts (the outbox signal) and every POLL_MS for other processes'.
 */
export class EventFeed {
  private readonly listeners = new Set<FeedListener>();
  private position: StreamPosition | null = null;
  private reading: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly db: Db,
    private readonly signal: OutboxSignal,
    private readonly log: Logger,
  ) {}

  /**
   * Adds a listener and returns the position from which it will be told every fact, and how to leave. A
   * stream sends its backlog up to that position itself, then what the feed tells it.
   */
  async join(listener: FeedListener): Promise<{ from: StreamPosition; leave: () => void }> {
    if (this.listeners.size === 0) await this.start();
    // wait for a read in progress, so that `from` is where the next batch begins
    while (this.reading) await this.reading;
    this.listeners.add(listener);
    return {
      from: this.position!,
      leave: () => {
        this.listeners.delete(listener);
        if (this.listeners.size === 0) this.stop();
      },
    };
  }

  close(): void {
    this.listeners.clear();
    this.stop();
  }

  private async start(): Promise<void> {
    this.position ??= await finalBound(this.db);
    this.unsubscribe ??= this.signal.subscribe(() => this.read());
    this.timer ??= setInterval(() => this.read(), POLL_MS);
    this.timer.unref();
  }

  private stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    // a later first stream starts from the facts final then: nobody is owed the ones in between
    this.position = null;
  }

  private read(): void {
    if (this.reading) {
      this.again = true;
      return;
    }
    if (this.listeners.size === 0 || !this.position) return;
    this.reading = this.readAll()
      .catch((err: unknown) => {
        if (!isDatabaseUnavailable(err)) this.log.warn({ err }, 'event feed read failed; trying again');
      })
      .finally(() => {
        this.reading = null;
        if (this.again) {
          this.again = false;
          this.read();
        }
      });
  }

  private async readAll(): Promise<void> {
    for (;;) {
      const from = this.position;
      if (!from) return;
      const { rows, bound } = await finalFactsAfter(this.db, from, READ_LIMIT);
      if (this.position !== from) return; // stopped meanwhile
      const last = rows.at(-1);
      this.position =
        rows.length === READ_LIMIT && last ? { txid: last.txid, id: last.id } : later(bound, from);
      if (rows.length > 0) for (const listener of this.listeners) listener(rows);
      if (rows.length < READ_LIMIT) return;
    }
  }
}

/** The later of two positions (a snapshot's bound never goes back, but a position read past it may lead). */
function later(a: StreamPosition, b: StreamPosition): StreamPosition {
  const ta = BigInt(a.txid);
  const tb = BigInt(b.txid);
  if (ta !== tb) return ta > tb ? a : b;
  return a.id > b.id ? a : b;
}
