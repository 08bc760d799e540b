/** What a signal stops: the runtime (src/runtime.ts), as far as a shutdown needs it. */
export interface Stoppable {
  platform: { log: { info(fields: object, message: string): void } };
  close(): Promise<void>;
}

/**
 * Drains in-flight requests and closes the database on SIGTERM/SIGINT, and on SIGHUP (the terminal or SSH
 * session that ran `npm start` closed: its default was an abrupt exit, no drain, the embedded server left
 * running). Accepts the runtime still starting, so a signal that arrives during start-up (after "listening"
 * was logged) is not lost to the default kill. Installed before the runtime's modules load (this module loads
 * none of them): a signal while they load, or while the database is waited for, stops the start as asked.
 */
export function closeOnSignals(
  runtime: Stoppable | Promise<Stoppable>,
  /** The database being opened for it: a signal before it is open stops the start at once (nothing to drain). */
  database?: Promise<unknown>,
): void {
  let firstAt = 0;
  let databaseOpen = database === undefined;
  database?.then(
    () => {
      databaseOpen = true;
    },
    () => undefined,
  );
  const stop = (signal: string) => {
    if (firstAt) {
      // `npm start` forwards the terminal's ^C that the process already got from the terminal: one press
      // arrives twice, a moment apart. A signal later than that is the operator choosing not to wait.
      if (Date.now() - firstAt < REPEAT_MS) return;
      process.stderr.write(`${signal} again: exiting without waiting for the drain\n`);
      process.exit(1);
    }
    firstAt = Date.now();
    if (!databaseOpen) {
      // still waiting for its database (a failover, a server not up yet): nothing opened, nothing to drain
      process.stderr.write(`${signal}: stopped before start-up finished (its database was not open yet)\n`);
      process.exit(0);
    }
    let started = false;
    Promise.resolve(runtime)
      .then(async (r) => {
        started = true;
        r.platform.log.info({ signal }, 'shutting down');
        await r.close();
        process.exit(0);
      })
      .catch((err: unknown) => {
        // a start that had not finished (waiting for its database, say) is stopped as asked: that is no failure
        if (!started) {
          process.stderr.write(`${signal}: stopped before start-up finished (${(err as Error).message})\n`);
          process.exit(0);
        }
        process.stderr.write(`error: shutdown failed: ${(err as Error).message}\n`);
        process.exit(1);
      });
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => stop(signal));
  // run by npm (`npm start`, `npx gateway serve`): npm stopped by its pid alone (a supervisor's or a user's
  // `kill <npm's pid>`) does not pass the signal on to the gateway, which would go on as an orphan holding its
  // port and its database. When whatever ran it goes away, it stops as if signalled; once a signal has reached
  // it, its own shutdown decides. (Run by a supervisor directly, its parent is the supervisor: nothing to watch.)
  if (process.env.npm_command) {
    const parent = process.ppid;
    const watch = setInterval(() => {
      if (process.ppid === parent) return;
      clearInterval(watch);
      process.kill(process.pid, 'SIGTERM');
    }, 1000).unref();
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
      process.once(signal, () => clearInterval(watch));
  }
}

const REPEAT_MS = 1000;
