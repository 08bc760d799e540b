import type { Db } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import type { Queue } from '../platform/queue.js';
import { type Settlement, type SettlementOutcome, settleBatch } from './settle-batch.js';
import type { TransitionResult } from './transition.js';

const MAX_BATCH = 64;
/** Shared transactions of one merchant in flight at once: they overlap their sale work, not their commits. */
const PARALLEL = 2;

interface Waiting extends Settlement {
  resolve(result: TransitionResult): void;
  reject(err: unknown): void;
}

interface Lane {
  queue: Waiting[];
  running: number;
}

/**
 * Every settlement of one merchant ends on that merchant's balance rows, so one transaction per sale
 * serializes on them (one commit per sale). Reports that arrive while a merchant's transactions run wait and
 * share the next one (group commit, like cashouts/batcher.ts): one balance update and one commit for many
 * sales, each still decided on its own. A failed shared transaction is retried item by item, so one bad
 * report cannot fail another.
 */
export class SaleSettler {
  private readonly lanes = new Map<number, Lane>();

  constructor(
    private readonly db: Db,
    private readonly queue: Queue,
  ) {}

  settle(accountId: number, settlement: Settlement): Promise<TransitionResult> {
    return new Promise((resolve, reject) => {
      let lane = this.lanes.get(accountId);
      if (!lane) {
        lane = { queue: [], running: 0 };
        this.lanes.set(accountId, lane);
      }
      lane.queue.push({ ...settlement, resolve, reject });
      this.pump(accountId, lane);
    });
  }

  private pump(accountId: number, lane: Lane): void {
    while (lane.running < PARALLEL && lane.queue.length > 0) {
      const batch = takeBatch(lane);
      lane.running++;
      void this.execute(accountId, batch).finally(() => {
        lane.running--;
        if (lane.queue.length > 0) this.pump(accountId, lane);
        else if (lane.running === 0) this.lanes.delete(accountId);
      });
    }
  }

  private async execute(accountId: number, batch: Waiting[]): Promise<void> {
    try {
      deliver(batch, await this.run(accountId, batch));
    } catch (err) {
      if (batch.length === 1) {
        batch[0]!.reject(err);
        return;
      }
      for (const item of batch) {
        await this.run(accountId, [item]).then(
          (o) => deliver([item], o),
          (e: unknown) => item.reject(e),
        );
      }
    }
  }

  private run(accountId: number, items: Settlement[]): Promise<SettlementOutcome[]> {
    return this.db.tx((tx) => settleBatch(tx, this.queue, accountId, items));
  }
}

/**
 * Up to MAX_BATCH waiting reports, one per sale (a later report of a sale waits for the next batch, which then
 * sees what the earlier one did); the others keep their order.
 */
function takeBatch(lane: Lane): Waiting[] {
  const batch: Waiting[] = [];
  const rest: Waiting[] = [];
  const sales = new Set<number>();
  for (const w of lane.queue) {
    if (batch.length < MAX_BATCH && !sales.has(w.saleId)) {
      batch.push(w);
      sales.add(w.saleId);
    } else rest.push(w);
  }
  lane.queue = rest;
  return batch;
}

function deliver(batch: Waiting[], outcomes: SettlementOutcome[]): void {
  batch.forEach((item, i) => {
    const o = outcomes[i]!;
    if (o instanceof AppError) item.reject(o);
    else item.resolve(o);
  });
}
