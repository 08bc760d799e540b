import type { Logger } from 'pino';
import type { Db } from '../platform/db.js';
import { fanOutPending } from './fanout.js';

export interface FanOutLoopOptions {
  /** Most facts per fan-out transaction. */
  batch: number;
  /** Pause when no fact is waiting (the latency a fact recorded by another process can see at most). */
  idleMs: number;
}

/**
 * The outbox hand-off: every worker process fans out the facts not fanned out yet, oldest first, straight from
 * notification_events (the fact row, committed with its state change, is the durable record; claiming it by
 * setting fanned_out_at makes the fan-out happen once, and SKIP LOCKED lets several processes share the
 * work). A full batch is followed by the next at once; otherwise the loop pauses idleMs. Replaces a pg-boss
 * job per fact, which measured ~30 % of the database's statement time in the webhooks benchmark.
 */
export function startFanOutLoop(
  db: Db,
  log: Logger,
  options: FanOutLoopOptions,
  onWork: () => void,
): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wakeUp: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      wakeUp = resolve;
      timer = setTimeout(resolve, ms);
    });
  const done = (async () => {
    while (!stopped) {
      try {
        const { facts, deliveries } = await fanOutPending(db, options.batch);
        if (deliveries > 0) onWork();
        if (facts < options.batch) await pause(options.idleMs);
      } catch (err) {
        if (stopped) return;
        log.warn({ err }, 'notification fan-out failed; retrying');
        await pause(1000);
      }
    }
  })();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    wakeUp?.();
    await done;
  };
}
