import { GroupCommit, type GroupCommitOptions } from '../concurrency/group-commit.js';
import { type Db, type GatheredWrite, type Queryable, whenCommitted } from './db.js';

/** A writer's work in a transaction: its statements, its result. */
export type TxWork<R> = (tx: Queryable) => Promise<R>;

/**
 * Transactions of independent writers shared under load (group commit): the works that arrive while others
 * are committing wait, and the next run does them one after the other in one transaction, so they share its
 * BEGIN, its COMMIT and its flush to disk. At rest the works submitted in one turn of the event loop run
 * together on the next (GroupCommit). A work that throws rolls its run back, and the run is done again work by
 * work, so one refusal never fails the others (each work must be safe to run twice: the first time rolled
 * back). Within a run, a work sees what the works before it wrote, as it would after their commits, but for the
 * rows they gathered (`Queryable.gather`: rows a writer only adds and nothing in the run reads back, such as the
 * outbox's facts), which the run writes kind by kind, each kind by one statement, just before its COMMIT: one
 * statement for the run's writers instead of one each.
 */
export class TxLane {
  private readonly group: GroupCommit<TxWork<unknown>, unknown>;

  constructor(
    db: Db,
    options: Pick<
      GroupCommitOptions<unknown>,
      'maxBatch' | 'parallel' | 'minBesideRunning' | 'maxWaitBesideMs'
    >,
  ) {
    this.group = new GroupCommit(
      (works) =>
        db.tx(async (tx) => {
          const gathered = new Map<GatheredWrite<unknown>, unknown[]>();
          const run: Queryable = {
            query: (text, params, opts) => tx.query(text, params, opts),
            afterCommit: (fn) => whenCommitted(tx, fn),
            gather: (kind, item) => {
              const items = gathered.get(kind as GatheredWrite<unknown>);
              if (items) items.push(item);
              else gathered.set(kind as GatheredWrite<unknown>, [item]);
            },
          };
          const results: unknown[] = [];
          for (const work of works) results.push(await work(run));
          for (const [kind, items] of gathered) await kind.write(tx, items);
          return results;
        }),
      { ...options, retryAlone: true },
    );
  }

  run<R>(work: TxWork<R>): Promise<R> {
    return this.group.submit(work) as Promise<R>;
  }
}
