import type { Logger } from 'pino';
import type { Config } from './config/config.js';
import type { Db, Queryable } from './db/db.js';
import type { OutboxSignal } from './db/outbox-signal.js';
import type { Queue } from './jobs/queue.js';

/** Infrastructure every domain receives: configuration, database, job queue, logger, outbox signal. */
export interface Platform {
  config: Config;
  db: Db;
  /** Reads that may come from a read replica (DATABASE_READ_URL): the panel's lists, exports, statement. */
  reads: Queryable;
  queue: Queue;
  log: Logger;
  /** Commits of notification facts in this process (the delivery dispatcher listens). */
  outbox: OutboxSignal;
}
