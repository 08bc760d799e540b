import type { ServerResponse } from 'node:http';
import { Counter } from 'prom-client';
import { registry } from '../platform/observability/metrics.js';

/**
 * Bounds on what a stream's reader may leave unsent (docs/security.md): past either, the connection is cut
 * and the client resumes with Last-Event-ID, missing nothing. The kernel's send buffer comes on top of the
 * bytes (it takes what it can before Node starts holding any); cutting the connection frees it too.
 */
export const STREAM_LIMITS = {
  /** Bytes held in this process for one stream, written and not yet taken by its socket. */
  maxUnsentBytes: 1024 * 1024,
  /** How long a stream may stay unable to write (its socket full) before it is cut. */
  maxStallMs: 10_000,
};

export const streamsCut = new Counter({
  name: 'gateway_event_streams_cut_total',
  help: 'Event streams closed because their reader left too much unsent, by bound (bytes, age)',
  labelNames: ['reason'] as const,
  registers: [registry],
});

/**
 * The writing side of one event stream: every write is checked against the bounds, and a stream past one is
 * destroyed, not ended (ending waits for the reader to take what is queued, which a stalled reader never does).
 */
export class StreamWriter {
  private stallTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly res: ServerResponse) {
    res.on('drain', () => this.clearStall());
    res.on('close', () => {
      this.closed = true;
      this.clearStall();
    });
  }

  get isClosed(): boolean {
    return this.closed || this.res.destroyed;
  }

  /** Writes `text`; a stream past a bound is cut. */
  write(text: string | Buffer): void {
    if (this.isClosed || text.length === 0) return;
    const fits = this.res.write(text);
    if (this.res.writableLength > STREAM_LIMITS.maxUnsentBytes) this.cut('bytes');
    else if (!fits && this.stallTimer === null) {
      this.stallTimer = setTimeout(() => this.cut('age'), STREAM_LIMITS.maxStallMs);
      this.stallTimer.unref();
    }
  }

  /** Resolves once the socket has taken what was written (or the stream closed): the backlog's pace. */
  async drained(): Promise<void> {
    if (this.isClosed || !this.res.writableNeedDrain) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
  }

  /** Cuts a stream over a bound (counted) — also for data held elsewhere for it. */
  cut(reason: 'bytes' | 'age'): void {
    if (this.isClosed) return;
    streamsCut.inc({ reason });
    this.res.destroy();
  }

  /** Ends the stream: gracefully when nothing is waiting (with `last`, a comment saying why), else at once. */
  close(last?: string): void {
    this.clearStall();
    if (this.isClosed) return;
    if (this.res.writableLength > 0) this.res.destroy();
    else this.res.end(last);
  }

  private clearStall(): void {
    if (this.stallTimer) clearTimeout(this.stallTimer);
    this.stallTimer = null;
  }
}
