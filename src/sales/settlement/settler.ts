import type { Db } from '../../platform/db/db.js';
import type { OutboxSignal } from '../../platform/db/outbox-signal.js';
import { AppError } from '../../platform/http/errors.js';
import type { Queue } from '../../platform/jobs/queue.js';
import { refKey, type Settlement, type SettlementOutcome, settleBatch } from './settle-batch.js';
import type { TransitionResult } from './transition.js';

const MAX_BATCH = 64;
/**
 * Shared transactions in flight at once. Each batch costs a fixed ~2 ms of round trips, planning and commit
 * besides its sales, so fewer, larger batches cost less CPU: measured at concurrency 16, 2 settled one
 * merchant as fast as 1 and 64 merchants faster; 3 or more made batches smaller and cost PostgreSQL more.
 */
const PARALLEL = 2;
/**
 * Reports a batch needs to start beside one already running; fewer wait for it to finish (one batch's time,
 * a few ms), but not longer than `maxWaitBesideMs` (a running batch may be stuck behind a lock). A batch of
 * one costs almost the fixed cost of a full one, and starting one for each report that arrived while a batch
 * ran split the work into batches of ~14 and of 1: measured at concurrency 16, waiting for 8 settled one
 * merchant ~20 % faster and 64 merchants ~15 % faster (docs/performance.md).
 */
const MIN_BESIDE_RUNNING = 8;
const MAX_WAIT_BESIDE_MS = 10;

interface Waiting extends Settlement {
  resolve(result: TransitionResult): void;
  reject(err: unknown): void;
}

/**
 * Every settlement ends on its merchant's balance rows, so one transaction per sale serializes on them (one
 * commit per sale), and even spread over many merchants costs a transaction per sale. Reports that arrive
 * while transactions run wait and share the next one (group commit, like cashouts/batcher.ts, but across
 * merchants): one commit and one update per balance row for many sales, each still decided on its own. A
 * failed shared transaction is retried item by item, so one bad report cannot fail another.
 */
export class SaleSettler {
  private waiting: Waiting[] = [];
  private running = 0;
  private besideTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly queue: Queue,
    private readonly outbox?: OutboxSignal,
    private readonly maxWaitBesideMs = MAX_WAIT_BESIDE_MS,
  ) {}

  settle(settlement: Settlement): Promise<TransitionResult> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ ...settlement, resolve, reject });
      this.pump();
    });
  }

  private pump(overdue = false): void {
    while (this.running < PARALLEL && this.waiting.length > 0) {
      if (this.running > 0 && this.waiting.length < MIN_BESIDE_RUNNING && !overdue) {
        this.besideTimer ??= setTimeout(() => {
          this.besideTimer = undefined;
          this.pump(true);
        }, this.maxWaitBesideMs);
        return;
      }
      clearTimeout(this.besideTimer);
      this.besideTimer = undefined;
      const batch = this.take();
      this.running++;
      void this.execute(batch).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  /**
   * Up to MAX_BATCH waiting reports, one per sale (a later report of a sale waits for the next batch, which
   * then sees what the earlier one did); the others keep their order.
   */
  private take(): Waiting[] {
    const batch: Waiting[] = [];
    const rest: Waiting[] = [];
    const sales = new Set<string>();
    for (const w of this.waiting) {
      const key = refKey(w.ref);
      if (batch.length < MAX_BATCH && !sales.has(key)) {
        batch.push(w);
        sales.add(key);
      } else rest.push(w);
    }
    this.waiting = rest;
    return batch;
  }

  private async execute(batch: Waiting[]): Promise<void> {
    try {
      const again = deliver(batch, await this.run(batch));
      this.waiting.unshift(...again);
    } catch (err) {
      if (batch.length === 1) {
        batch[0]!.reject(err);
        return;
      }
      for (const item of batch) {
        await this.run([item]).then(
          (o) => deliver([item], o),
          (e: unknown) => {
            item.reject(e);
          },
        );
      }
    }
  }

  private async run(items: Settlement[]): Promise<SettlementOutcome[]> {
    // the balance rows, which every settlement of a merchant shares, are moved with the COMMIT: held locked
    // for that one round trip instead of from the write statement to the end of the transaction
    const outcomes = await this.db.txEndingWith(
      async (tx) => {
        const last: string[] = [];
        const decided = await settleBatch(tx, this.queue, items, (statement) => {
          last.push(statement);
        });
        return [decided, last.join('\n;\n')];
      },
      { generic: true },
    );
    // applied moves record their notification facts (sale.paid, …): those are committed now
    if (outcomes.some((o) => typeof o === 'object' && !(o instanceof AppError) && o.outcome === 'applied'))
      this.outbox?.committed();
    return outcomes;
  }
}

/** Settles each waiting report with its outcome; returns those to run again (in the next batch). */
function deliver(batch: Waiting[], outcomes: SettlementOutcome[]): Waiting[] {
  const again: Waiting[] = [];
  batch.forEach((item, i) => {
    const o = outcomes[i]!;
    if (o === 'again') again.push(item);
    else if (o instanceof AppError) item.reject(o);
    else item.resolve(o);
  });
  return again;
}
