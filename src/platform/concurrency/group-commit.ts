import { isDatabaseUnavailable } from '../db/unavailable.js';

/** An outcome that sends its item back to wait for the next batch. */
export const AGAIN = Symbol('again');

/** What a run decides for each item, in order: its result, its refusal (an Error), or AGAIN. */
export type Outcome<R> = R | Error | typeof AGAIN;

export interface GroupCommitOptions<T> {
  /** Items one run takes at most. */
  maxBatch: number;
  /** Runs in flight at once. */
  parallel: number;
  /**
   * A run starts beside one already running only once this many items wait, or `maxWaitBesideMs` after the
   * first of them arrived (a batch of one costs almost the fixed cost of a full one). Default 1: at once.
   */
  minBesideRunning?: number;
  maxWaitBesideMs?: number;
  /** Items of one key never share a run: a later one waits for the next, which sees what the first did. */
  keyOf?: (item: T) => string;
  /** A failed shared run is run again item by item, so one bad item cannot fail the others. */
  retryAlone: boolean;
  /** Called when nothing waits and nothing runs (an owner of many groups drops this one). */
  onIdle?: () => void;
}

interface Waiting<T, R> {
  item: T;
  resolve(result: R): void;
  reject(err: unknown): void;
}

/**
 * Group commit: items that arrive while runs are in flight wait and share the next run (one transaction or
 * statement for many items under load). At rest, the items submitted in one turn of the event loop (the
 * requests read from the sockets that were ready, the answers of one run of another group) run together on
 * the next turn (setImmediate): no timer's wait, and a chain of groups (a card sale stored, its acquirer's
 * answer written, that answer applied) keeps the batch it started with instead of splitting it into one item
 * run alone and the others waiting for it. Each item still gets its own outcome. The cashout creation lanes, the
 * sale settler and the delivery outcome writers are instances of it.
 */
export class GroupCommit<T, R> {
  private waiting: Waiting<T, R>[] = [];
  private running = 0;
  private besideTimer: NodeJS.Timeout | undefined;
  private turnScheduled = false;

  constructor(
    private readonly run: (items: T[]) => Promise<Outcome<R>[]>,
    private readonly options: GroupCommitOptions<T>,
  ) {}

  submit(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      // in flight: the rules for a run beside it (minBesideRunning); at rest: once this turn's items are in
      if (this.running > 0) this.pump();
      else if (!this.turnScheduled) {
        this.turnScheduled = true;
        setImmediate(() => {
          this.turnScheduled = false;
          this.pump();
        });
      }
    });
  }

  private pump(overdue = false): void {
    const { parallel, minBesideRunning = 1, maxWaitBesideMs = 0 } = this.options;
    while (this.running < parallel && this.waiting.length > 0) {
      if (this.running > 0 && this.waiting.length < minBesideRunning && !overdue) {
        this.besideTimer ??= setTimeout(() => {
          this.besideTimer = undefined;
          this.pump(true);
        }, maxWaitBesideMs);
        return;
      }
      clearTimeout(this.besideTimer);
      this.besideTimer = undefined;
      const batch = this.take();
      this.running++;
      void this.execute(batch).finally(() => {
        this.running--;
        this.pump();
        if (this.running === 0 && this.waiting.length === 0) this.options.onIdle?.();
      });
    }
  }

  /** Up to maxBatch waiting items, one per key when items have keys; the others keep their order. */
  private take(): Waiting<T, R>[] {
    const { maxBatch, keyOf } = this.options;
    if (!keyOf) return this.waiting.splice(0, maxBatch);
    const batch: Waiting<T, R>[] = [];
    const rest: Waiting<T, R>[] = [];
    const keys = new Set<string>();
    for (const w of this.waiting) {
      const key = keyOf(w.item);
      if (batch.length < maxBatch && !keys.has(key)) {
        batch.push(w);
        keys.add(key);
      } else rest.push(w);
    }
    this.waiting = rest;
    return batch;
  }

  private async execute(batch: Waiting<T, R>[]): Promise<void> {
    try {
      // awaited before `this.waiting` is read: take() replaces the array while the run is in flight
      const again = deliver(batch, await this.run(batch.map((w) => w.item)));
      this.waiting.unshift(...again);
    } catch (err) {
      // a lost database is not one bad item: and a COMMIT lost with its connection may have committed, so the
      // run is not repeated item by item (a client's retry with its Idempotency-Key is answered from it)
      if (!this.options.retryAlone || batch.length === 1 || isDatabaseUnavailable(err)) {
        for (const w of batch) w.reject(err);
        return;
      }
      for (const w of batch) {
        await this.run([w.item]).then(
          (outcomes) => {
            const again = deliver([w], outcomes);
            this.waiting.unshift(...again);
          },
          (e: unknown) => w.reject(e),
        );
      }
    }
  }
}

/** Settles each waiting item with its outcome; returns those to run again. */
function deliver<T, R>(batch: Waiting<T, R>[], outcomes: Outcome<R>[]): Waiting<T, R>[] {
  const again: Waiting<T, R>[] = [];
  batch.forEach((w, i) => {
    const o = outcomes[i] as Outcome<R>;
    if (o === AGAIN) again.push(w);
    else if (o instanceof Error) w.reject(o);
    else w.resolve(o);
  });
  return again;
}
