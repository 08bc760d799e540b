import { fromPglite, PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import type { Db, Queryable } from './db.js';
import { JOB_POLICIES, type JobName, type JobPayloads } from './jobs.js';

export interface Job<N extends JobName> {
  id: string;
  name: N;
  data: JobPayloads[N];
}

export interface SendOptions {
  /** pg-boss singleton key: at most one queued job per key. */
  singletonKey?: string;
  startAfterSeconds?: number;
}

export interface WorkOptions {
  batchSize?: number;
  localConcurrency?: number;
}

/** A PostgreSQL-backed job queue (pg-boss). Jobs are sent inside the caller's transaction (outbox semantics). */
export class Queue {
  private constructor(private readonly boss: PgBoss) {}

  static async start(db: Db, log: Logger): Promise<Queue> {
    const boss =
      db.kind === 'pglite' && db.pglite
        ? new PgBoss({ db: fromPglite(db.pglite), useListenNotify: true, schedule: false })
        : new PgBoss({
            connectionString: db.connectionString,
            max: 4,
            useListenNotify: true,
            schedule: false,
          });
    boss.on('error', (err: Error) => log.error({ err }, 'queue error'));
    await boss.start();
    for (const [name, policy] of Object.entries(JOB_POLICIES)) {
      await boss.createQueue(name, {
        notify: true,
        retryLimit: policy.retryLimit,
        retryDelay: policy.retryDelaySeconds,
        retryBackoff: policy.retryBackoff,
        expireInSeconds: policy.expireInSeconds,
      });
    }
    // createQueue evicts pg-boss's queue cache. Refill it now: otherwise the first send of each job inside a
    // transaction looks its queue up on pg-boss's own connection, which on PGlite (one connection) waits
    // forever for that very transaction. findJobs loads the cache entry (then finds no job with a nil id).
    for (const name of Object.keys(JOB_POLICIES)) {
      await boss.findJobs(name, { id: '00000000-0000-0000-0000-000000000000' });
    }
    return new Queue(boss);
  }

  /** Enqueue inside `tx`: the job exists if and only if the transaction commits. */
  async send<N extends JobName>(
    tx: Queryable,
    name: N,
    data: JobPayloads[N],
    options: SendOptions = {},
  ): Promise<void> {
    await this.boss.send(name, data as object, {
      db: {
        executeSql: async (text: string, values?: unknown[]) => ({ rows: await tx.query(text, values) }),
      },
      ...(options.singletonKey ? { singletonKey: options.singletonKey } : {}),
      ...(options.startAfterSeconds ? { startAfter: options.startAfterSeconds } : {}),
    });
  }

  async work<N extends JobName>(
    name: N,
    options: WorkOptions,
    handler: (jobs: Job<N>[]) => Promise<void>,
  ): Promise<void> {
    await this.boss.work<JobPayloads[N]>(
      name,
      {
        batchSize: options.batchSize ?? 1,
        localConcurrency: options.localConcurrency ?? 1,
        pollingIntervalSeconds: 1,
        notifyPollingIntervalSeconds: 5,
        burstWhenBatchFull: (options.batchSize ?? 1) > 1,
      },
      async (jobs) => handler(jobs as unknown as Job<N>[]),
    );
  }

  async stop(): Promise<void> {
    await this.boss.stop({ graceful: true, timeout: 10000 });
  }
}
