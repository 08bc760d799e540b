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
  /** Absolute start time (sub-second precision), e.g. a retry wait in milliseconds. */
  startAt?: Date;
  /** pg-boss group id, for per-group concurrency limits (e.g. one target host). */
  group?: string;
}

export interface WorkOptions {
  batchSize?: number;
  localConcurrency?: number;
  /** At most this many active jobs per group in this process. */
  localGroupConcurrency?: number;
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
      ...(options.startAt ? { startAfter: options.startAt } : {}),
      ...(options.group ? { group: { id: options.group } } : {}),
    });
  }

  /** Enqueue many jobs of one name inside `tx`, in one statement. */
  async sendMany<N extends JobName>(
    tx: Queryable,
    name: N,
    jobs: { data: JobPayloads[N]; options?: SendOptions }[],
  ): Promise<void> {
    if (jobs.length === 0) return;
    const policy = JOB_POLICIES[name];
    await this.boss.insert(
      name,
      jobs.map(({ data, options = {} }) => ({
        data: data as object,
        retryLimit: policy.retryLimit,
        retryDelay: policy.retryDelaySeconds,
        retryBackoff: policy.retryBackoff,
        expireInSeconds: policy.expireInSeconds,
        ...(options.singletonKey ? { singletonKey: options.singletonKey } : {}),
        ...(options.startAt ? { startAfter: options.startAt } : {}),
        ...(options.group ? { group: { id: options.group } } : {}),
      })),
      {
        db: {
          executeSql: async (text: string, values?: unknown[]) => ({ rows: await tx.query(text, values) }),
        },
      },
    );
  }

  async work<N extends JobName>(
    name: N,
    options: WorkOptions,
    handler: (jobs: Job<N>[]) => Promise<void>,
  ): Promise<string> {
    return this.boss.work<JobPayloads[N]>(
      name,
      {
        batchSize: options.batchSize ?? 1,
        localConcurrency: options.localConcurrency ?? 1,
        pollingIntervalSeconds: 1,
        notifyPollingIntervalSeconds: 5,
        burstWhenBatchFull: (options.batchSize ?? 1) > 1,
        ...(options.localGroupConcurrency ? { localGroupConcurrency: options.localGroupConcurrency } : {}),
      },
      async (jobs) => handler(jobs as unknown as Job<N>[]),
    );
  }

  /**
   * Claims up to `batchSize` due jobs for a caller that runs them itself and settles each with `complete` or
   * `fail` (no head-of-line wait for a batch). Jobs of the groups in `ignoreGroups` are left for later;
   * `groupConcurrency` caps the active jobs of any one group across every process (counted by the database).
   */
  async fetch<N extends JobName>(
    name: N,
    options: { batchSize: number; ignoreGroups?: string[]; groupConcurrency?: number },
  ): Promise<(Job<N> & { group: string | null })[]> {
    const jobs = await this.boss.fetch<JobPayloads[N]>(name, {
      batchSize: options.batchSize,
      includeMetadata: true,
      ...(options.ignoreGroups?.length ? { ignoreGroups: options.ignoreGroups } : {}),
      ...(options.groupConcurrency ? { groupConcurrency: options.groupConcurrency } : {}),
    });
    return jobs.map((j) => ({ id: j.id, name, data: j.data, group: j.groupId ?? null }));
  }

  async complete(name: JobName, ids: string[]): Promise<void> {
    if (ids.length > 0) await this.boss.complete(name, ids);
  }

  async fail(name: JobName, ids: string[]): Promise<void> {
    if (ids.length > 0) await this.boss.fail(name, ids);
  }

  /** Makes a worker (the id `work` returned) fetch now, e.g. when a delayed job it scheduled falls due. */
  wake(workerId: string): void {
    this.boss.notifyWorker(workerId);
  }

  async stop(): Promise<void> {
    await this.boss.stop({ graceful: true, timeout: 10000 });
  }
}
