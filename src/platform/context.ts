import type { Logger } from 'pino';
import type { Config } from './config/config.js';
import type { Db } from './db/db.js';
import type { OutboxSignal } from './db/outbox-signal.js';
import type { Queue } from './jobs/queue.js';

/** Infrastructure every domain receives: configuration, database, job queue, logger, outbox signal. */
export interface Platform {
  config: Config;
  db: Db;
  queue: Queue;
  log: Logger;
  /** Commits of notification facts in this process (the delivery dispatcher listens). */
  outbox: OutboxSignal;
}
