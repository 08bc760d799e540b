import type { Db } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import type { Queue } from '../platform/queue.js';
import { type CashoutItem, type Created, createBatch, type ItemOutcome } from './create-batch.js';
import { IdempotencyRace } from './idempotency.js';
import { type CashoutRequest, requestHash } from './request.js';

const MAX_BATCH = 64;

interface Waiting extends CashoutItem {
  resolve(created: Created): void;
  reject(err: unknown): void;
}

/**
 * Every cashout of one account serializes on its available balance row, so one transaction at a time per
 * account is all the database allows anyway. Requests that arrive while an account's transaction runs
 * wait for the next one and share it (group commit): one lock, one commit for many cashouts, each still
 * decided on its own. A failure of a shared transaction is retried item by item, so one bad request
 * cannot fail another.
 */
export class CashoutCreator {
  private readonly lanes = new Map<number, Waiting[]>();

  constructor(
    private readonly db: Db,
    private readonly queue: Queue,
  ) {}

  create(accountId: number, req: CashoutRequest, key: string | null): Promise<Created> {
    return new Promise((resolve, reject) => {
      const item: Waiting = { req, key, hash: requestHash(req), resolve, reject };
      const lane = this.lanes.get(accountId);
      if (lane) {
        lane.push(item);
        return;
      }
      this.lanes.set(accountId, [item]);
      void this.drain(accountId);
    });
  }

  private async drain(accountId: number): Promise<void> {
    for (;;) {
      const lane = this.lanes.get(accountId)!;
      if (lane.length === 0) {
        this.lanes.delete(accountId);
        return;
      }
      const batch = lane.splice(0, MAX_BATCH);
      try {
        settle(batch, await runBatch(this.db, this.queue, accountId, batch));
      } catch (err) {
        if (batch.length === 1) batch[0]!.reject(err);
        else {
          for (const item of batch) {
            await runBatch(this.db, this.queue, accountId, [item]).then(
              (o) => settle([item], o),
              (e: unknown) => item.reject(e),
            );
          }
        }
      }
    }
  }
}

/** One transaction for `items`; a key stored concurrently by another process → run again (then replay). */
export async function runBatch(
  db: Db,
  queue: Queue,
  accountId: number,
  items: CashoutItem[],
): Promise<ItemOutcome[]> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.tx((tx) => createBatch(tx, queue, accountId, items));
    } catch (err) {
      if (!(err instanceof IdempotencyRace) || attempt >= 3) throw err;
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
