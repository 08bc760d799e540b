import type { Actor } from '../../audit/audit.data.js';
import type { Db } from '../../platform/db/db.js';
import { AppError } from '../../platform/http/errors.js';
import type { Queue } from '../../platform/jobs/queue.js';
import { type CashoutRequest, requestHash } from '../request.js';
import { createBatch, StaleBalance } from './create-batch.js';
import { IdempotencyRace } from './idempotency.js';
import type { CashoutItem, Created, ItemOutcome } from './types.js';

const MAX_BATCH = 64;
/** Shared transactions of one account in flight at once (optimistic; see createBatch). */
const PARALLEL = 2;

interface Waiting extends CashoutItem {
  resolve(created: Created): void;
  reject(err: unknown): void;
}

interface Lane {
  queue: Waiting[];
  running: number;
}

/**
 * Every cashout of one account ends on its available balance row, so its transactions cannot usefully run
 * side by side in large numbers. Requests that arrive while an account's transactions run wait and share
 * the next one (group commit): one commit for many cashouts, each still decided on its own. A failure of
 * a shared transaction is retried item by item, so one bad request cannot fail another.
 */
export class CashoutCreator {
  private readonly lanes = new Map<number, Lane>();

  constructor(
    private readonly db: Db,
    private readonly queue: Queue,
  ) {}

  create(accountId: number, req: CashoutRequest, key: string | null, actor?: Actor): Promise<Created> {
    return new Promise((resolve, reject) => {
      let lane = this.lanes.get(accountId);
      if (!lane) {
        lane = { queue: [], running: 0 };
        this.lanes.set(accountId, lane);
      }
      lane.queue.push({ req, key, hash: requestHash(req), actor, resolve, reject });
      this.pump(accountId, lane);
    });
  }

  private pump(accountId: number, lane: Lane): void {
    while (lane.running < PARALLEL && lane.queue.length > 0) {
      const batch = lane.queue.splice(0, MAX_BATCH);
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
      settle(batch, await runBatch(this.db, this.queue, accountId, batch));
    } catch (err) {
      if (batch.length === 1) {
        batch[0]!.reject(err);
        return;
      }
      for (const item of batch) {
        await runBatch(this.db, this.queue, accountId, [item]).then(
          (o) => settle([item], o),
          (e: unknown) => item.reject(e),
        );
      }
    }
  }
}

/**
 * One transaction for `items`: optimistic first, then with the balance locked if it was overtaken; a key
 * stored concurrently by another process → run again (it is then a replay).
 */
export async function runBatch(
  db: Db,
  queue: Queue,
  accountId: number,
  items: CashoutItem[],
): Promise<ItemOutcome[]> {
  let lockFirst = false;
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.tx((tx) => createBatch(tx, queue, accountId, items, lockFirst));
    } catch (err) {
      if (err instanceof StaleBalance) lockFirst = true;
      else if (!(err instanceof IdempotencyRace) || attempt >= 3) throw err;
      if (attempt >= 5) throw err;
    }
  }
}

function settle(batch: Waiting[], outcomes: ItemOutcome[]): void {
  batch.forEach((item, i) => {
    const o = outcomes[i]!;
    if (o instanceof AppError) item.reject(o);
    else item.resolve(o);
  });
}
