import { AGAIN, GroupCommit, type Outcome } from '../../platform/concurrency/group-commit.js';
import type { Db } from '../../platform/db/db.js';
import type { OutboxSignal } from '../../platform/db/outbox-signal.js';
import { AppError } from '../../platform/errors/app-error.js';
import type { Queue } from '../../platform/jobs/queue.js';
import { refKey, type Settlement, settleBatch } from './settle-batch.js';
import type { TransitionResult } from './transition.js';

const MAX_BATCH = 64;
/**
 * Shared transactions in flight at once. Each batch has a fixed cost (round trips, planning, commit) besides
 * its sales, so fewer, larger batches cost less CPU; more in flight made batches smaller and cost PostgreSQL
 * more (docs/performance.md, "Sale settlement").
 */
const PARALLEL = 2;
/**
 * Reports a batch needs to start beside one already running; fewer wait for it to finish (one batch's time),
 * but not longer than `maxWaitBesideMs` (a running batch may be stuck behind a lock). A batch of one costs
 * almost the fixed cost of a full one, and starting one for each report that arrived while a batch ran split
 * the work into tiny batches (docs/performance.md).
 */
const MIN_BESIDE_RUNNING = 8;
const MAX_WAIT_BESIDE_MS = 10;

/**
 * Every settlement ends on its merchant's balance rows, so one transaction per sale serializes on them (one
 * commit per sale), and even spread over many merchants costs a transaction per sale. Reports that arrive
 * while transactions run wait and share the next one (group commit across merchants): one commit and one
 * update per balance row for many sales, each still decided on its own. A failed shared transaction is
 * retried item by item, so one bad report cannot fail another.
 */
export class SaleSettler {
  private readonly group: GroupCommit<Settlement, TransitionResult>;

  constructor(
    private readonly db: Db,
    /** The job queue of the moves it makes (a refund that makes its sale ESTORNADO moves it with this too). */
    readonly queue: Queue,
    private readonly outbox?: OutboxSignal,
    maxWaitBesideMs = MAX_WAIT_BESIDE_MS,
  ) {
    this.group = new GroupCommit((items) => this.run(items), {
      maxBatch: MAX_BATCH,
      parallel: PARALLEL,
      minBesideRunning: MIN_BESIDE_RUNNING,
      maxWaitBesideMs,
      // a later report of a sale waits for the next batch, which then sees what the earlier one did
      keyOf: (s) => refKey(s.ref),
      retryAlone: true,
    });
  }

  /** Decides and applies one processor report of a sale's status (shares a transaction under load). */
  settle(settlement: Settlement): Promise<TransitionResult> {
    return this.group.submit(settlement);
  }

  private async run(items: Settlement[]): Promise<Outcome<TransitionResult>[]> {
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
    return outcomes.map((o) => (o === 'again' ? AGAIN : o));
  }
}
