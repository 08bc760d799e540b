import { type Db as BossDatabase, PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import type { Db, Queryable, QueryOptions } from '../db/db.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { JOB_POLICIES, type JobName, type JobPayloads } from './catalogue.js';

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
  /**
   * How often to look for due jobs besides NOTIFY wake-ups (default 5 s). A retry falling due sends no NOTIFY,
   * so a queue whose retries must run on time polls more often.
   */
  pollSeconds?: number;
}

/**
 * pg-boss's insert, sent in the caller's transaction, cost more to plan than to run (a cashout batch sends one):
 * each distinct text it sends is a named prepared statement, planned once per connection. pg-boss builds
 * those texts from a few fixed templates, so the names stay few.
 */
const preparedNames = new Map<string, string>();
const MAX_PREPARED = 64;
function prepared(text: string): QueryOptions | undefined {
  let name = preparedNames.get(text);
  // (bounded, should a later pg-boss write values into its text: then the rest are simply not prepared)
  if (name === undefined && preparedNames.size < MAX_PREPARED) {
    name = `queue_send_${preparedNames.size + 1}`;
    preparedNames.set(text, name);
  }
  return name === undefined ? undefined : { prepare: name };
}

/**
 * pg-boss on the gateway's own connections (a pool of 4, and the process's one LISTEN connection), so that
 * they follow the primary through a failover as every other connection does.
 */
function queueDatabase(db: Db): BossDatabase {
  const pool = db.withSettings({}, 4);
  return {
    // every statement's rows, in order, as pg-boss's own adapter answers a text of several statements
    executeSql: async (text, values) => ({ rows: await pool.query(text, values) }),
    listen: async (channel, onNotification, onReconnect) => {
      const close = await db.listen(channel, (payload) =>
        payload === '*' ? onReconnect() : onNotification(payload),
      );
      return { close };
    },
  };
}

/** Hands pg-boss a statement's answer without sending it anywhere. */
const NOWHERE: BossDatabase = { executeSql: async () => ({ rows: [] }) };

/**
 * pg-boss looks a queue up in its cache on every send, and reads it from the database on its own connections
 * when missing; createQueue and updateQueue evict it. A send in a caller's transaction that misses the cache
 * then waits, holding its transaction's connection, for another: behind a transaction-mode pooler with fewer
 * server connections than the transactions doing so, none is ever free. So each queue is looked up once
 * here, by a send whose statement goes nowhere (no job is made).
 */
async function warmQueueCache(boss: PgBoss): Promise<void> {
  for (const name of Object.keys(JOB_POLICIES)) await boss.send(name, {}, { db: NOWHERE });
}

/**
 * The queue's upkeep, done by every long-running process (pg-boss elects one per pass): jobs whose worker died
 * (no heartbeat for HEARTBEAT_SECONDS, or past their policy's expiry) are failed and so retried, and finished
 * jobs are deleted once `retentionSeconds` old. A one-shot command that only sends jobs passes none.
 */
export interface QueueUpkeep {
  superviseIntervalSeconds: number;
  retentionSeconds: number;
}

/** A worker sends its active jobs' heartbeat every 5 s; one silent for 10 s died with its process. */
const HEARTBEAT_SECONDS = 10;
/** Finished jobs are looked for at least hourly (sooner when they are kept for less). */
const MAX_DELETION_INTERVAL_SECONDS = 3600;

/** A PostgreSQL-backed job queue (pg-boss). Jobs are sent inside the caller's transaction (outbox semantics). */
export class Queue {
  private constructor(private readonly boss: PgBoss) {}

  static async start(db: Db, log: Logger, upkeep: QueueUpkeep | null): Promise<Queue> {
    const boss = new PgBoss({
      db: queueDatabase(db),
      useListenNotify: true,
      schedule: false,
      supervise: upkeep !== null,
      ...(upkeep
        ? {
            superviseIntervalSeconds: upkeep.superviseIntervalSeconds,
            monitorIntervalSeconds: upkeep.superviseIntervalSeconds,
            maintenanceIntervalSeconds: Math.min(upkeep.retentionSeconds, MAX_DELETION_INTERVAL_SECONDS),
          }
        : {}),
    });
    // while the database is lost its workers' polls fail and go on polling: they resume with it
    boss.on('error', (err: Error) => {
      if (isDatabaseUnavailable(err)) log.debug({ err }, 'queue paused: database unavailable');
      else log.error({ err }, 'queue error');
    });
    await boss.start();
    for (const [name, policy] of Object.entries(JOB_POLICIES)) {
      const options = {
        notify: true,
        retryLimit: policy.retryLimit,
        retryDelay: policy.retryDelaySeconds,
        retryBackoff: policy.retryBackoff,
        ...(policy.retryDelayMaxSeconds ? { retryDelayMax: policy.retryDelayMaxSeconds } : {}),
        expireInSeconds: policy.expireInSeconds,
        heartbeatSeconds: HEARTBEAT_SECONDS,
        ...(upkeep ? { deleteAfterSeconds: upkeep.retentionSeconds } : {}),
      };
      await boss.createQueue(name, options);
      await boss.updateQueue(name, options); // a policy changed in catalogue.ts applies to existing databases too
    }
    await warmQueueCache(boss);
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
        executeSql: async (text: string, values?: unknown[]) => ({
          rows: await tx.query(text, values, prepared(text)),
        }),
      },
      ...(options.singletonKey ? { singletonKey: options.singletonKey } : {}),
      ...(options.startAfterSeconds ? { startAfter: options.startAfterSeconds } : {}),
    });
  }

  /**
   * Works `name`'s jobs: `localConcurrency` loops, each fetching up to `batchSize` jobs and handing them to
   * `handler`. A loop that fetched a full batch fetches again at once, until a fetch comes back short; then it
   * waits for a NOTIFY (a job sent) or `pollSeconds`. pg-boss's own loop does so only for batches larger than
   * one: at one job a fetch, a NOTIFY coalesced while the loop was busy left a backlog (thirty e-mails queued at
   * once) worked at one job per loop every `pollSeconds`.
   */
  async work<N extends JobName>(
    name: N,
    options: WorkOptions,
    handler: (jobs: Job<N>[]) => Promise<void>,
  ): Promise<void> {
    const batchSize = options.batchSize ?? 1;
    for (let i = 0; i < (options.localConcurrency ?? 1); i++) {
      let loop: string | undefined;
      loop = await this.boss.work<JobPayloads[N]>(
        name,
        {
          batchSize,
          localConcurrency: 1,
          pollingIntervalSeconds: 1,
          notifyPollingIntervalSeconds: options.pollSeconds ?? 5,
        },
        async (jobs) => {
          try {
            await handler(jobs as unknown as Job<N>[]);
          } finally {
            // a full batch: there may be more ready (read by the loop as a NOTIFY come in meanwhile)
            if (jobs.length >= batchSize && loop) this.boss.notifyWorker(loop);
          }
        },
      );
    }
  }

  async stop(): Promise<void> {
    await this.boss.stop({ graceful: true, timeout: 10000 });
  }
}
