import type { Actor } from '../../audit/index.js';
import { GroupCommit } from '../../platform/concurrency/group-commit.js';
import type { Db, Queryable } from '../../platform/db/db.js';
import type { Queue } from '../../platform/jobs/queue.js';
import { requestHash, type WithdrawalRequest } from '../request.js';
import { createBatch, StaleBalance } from './create-batch.js';
import { IdempotencyRace } from './idempotency.js';
import type { Created, ItemOutcome, RecipientRef, WithdrawalItem } from './types.js';

const MAX_BATCH = 64;
/** Shared transactions of one account in flight at once (optimistic; see createBatch). */
const PARALLEL = 2;

/**
 * Every cashout of one account ends on its available balance row, so its transactions cannot usefully run
 * side by side in large numbers. Requests that arrive while an account's transactions run wait and share
 * the next one (group commit, a lane per account): one commit for many cashouts, each still decided on its
 * own. A failure of a shared transaction is retried item by item, so one bad request cannot fail another.
 */
export class WithdrawalCreator {
  private readonly lanes = new Map<number, GroupCommit<WithdrawalItem, Created>>();
  /** A recipient's cashouts end on its own balance row: a lane per recipient. */
  private readonly recipientLanes = new Map<number, GroupCommit<WithdrawalItem, Created>>();

  constructor(
    private readonly db: Db,
    private readonly queue: Queue,
  ) {}

  create(
    accountId: number,
    req: WithdrawalRequest,
    key: string | null,
    actor?: Actor,
    requestedBy?: string,
  ): Promise<Created> {
    let lane = this.lanes.get(accountId);
    if (lane === undefined) {
      lane = new GroupCommit<WithdrawalItem, Created>(
        (items) => runBatch(this.db, this.queue, accountId, items),
        {
          maxBatch: MAX_BATCH,
          parallel: PARALLEL,
          retryAlone: true,
          onIdle: () => this.lanes.delete(accountId),
        },
      );
      this.lanes.set(accountId, lane);
    }
    return lane.submit({ req, key, hash: requestHash(req), actor, requestedBy });
  }

  /**
   * A cashout of one of the account's recipients (split payments): the account's rules, fees and keys, the
   * recipient's balance. The key's request hash names the recipient, so one key cannot serve two of them.
   */
  createForRecipient(
    accountId: number,
    recipient: RecipientRef,
    req: WithdrawalRequest,
    key: string | null,
    actor?: Actor,
    requestedBy?: string,
  ): Promise<Created> {
    let lane = this.recipientLanes.get(recipient.id);
    if (lane === undefined) {
      lane = new GroupCommit<WithdrawalItem, Created>(
        (items) => runBatch(this.db, this.queue, accountId, items, recipient),
        {
          maxBatch: MAX_BATCH,
          parallel: PARALLEL,
          retryAlone: true,
          onIdle: () => this.recipientLanes.delete(recipient.id),
        },
      );
      this.recipientLanes.set(recipient.id, lane);
    }
    return lane.submit({ req, key, hash: requestHash(req, recipient.uuid), actor, requestedBy });
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
  items: WithdrawalItem[],
  recipient: RecipientRef | null = null,
): Promise<ItemOutcome[]> {
  let lockFirst = false;
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.tx((tx) => createBatch(tx, queue, accountId, items, lockFirst, recipient));
    } catch (err) {
      if (err instanceof StaleBalance) lockFirst = true;
      else if (!(err instanceof IdempotencyRace) || attempt >= 3) throw err;
      if (attempt >= 5) throw err;
    }
  }
}

/**
 * One withdrawal created in the caller's transaction (an automatic payout commits it with its period's
 * record): the same checks as a request's, the balance row locked first, no Idempotency-Key. A refusal is
 * returned as its AppError, nothing written for it.
 */
export async function createWithdrawalIn(
  tx: Queryable,
  queue: Queue,
  accountId: number,
  recipient: RecipientRef | null,
  req: WithdrawalRequest,
  requestedBy: string,
): Promise<ItemOutcome> {
  const [outcome] = await createBatch(
    tx,
    queue,
    accountId,
    [{ req, key: null, hash: requestHash(req, recipient?.uuid), requestedBy }],
    true,
    recipient,
  );
  return outcome!;
}
