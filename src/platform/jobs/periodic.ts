/**
 * Runs `task` every `everyMs` (started with the workers), never two at once; errors go to `onError`. The
 * timer does not hold the process open. Returns the stop function.
 */
export function startPeriodic(
  everyMs: number,
  task: () => Promise<unknown>,
  onError: (err: unknown) => void,
): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    task()
      .catch(onError)
      .finally(() => {
        running = false;
      });
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
