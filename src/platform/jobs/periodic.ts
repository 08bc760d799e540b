import { isDatabaseUnavailable } from '../db/unavailable.js';

/**
 * Runs `task` every `everyMs` (started with the workers), never two at once; errors go to `onError`. The
 * timer does not hold the process open. Returns the stop function. While the database is lost (a failover)
 * its rounds fail at once and are not reported each time: the database's own log line says it once, and the
 * next round after it is back does the work.
 */
export function startPeriodic(
  everyMs: number,
  task: () => Promise<unknown>,
  onError: (err: unknown) => void,
  options: { atStart?: boolean } = {},
): () => void {
  let running = false;
  const round = () => {
    if (running) return;
    running = true;
    task()
      .catch((err: unknown) => {
        if (!isDatabaseUnavailable(err)) onError(err);
      })
      .finally(() => {
        running = false;
      });
  };
  const timer = setInterval(round, everyMs);
  timer.unref();
  // a long period's first round at once (`atStart`): a restart does not leave its work waiting a whole period
  const first = options.atStart ? setTimeout(round, 0) : null;
  first?.unref();
  return () => {
    clearInterval(timer);
    if (first) clearTimeout(first);
  };
}
