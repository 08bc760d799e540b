import pg from 'pg';
import type { HostLocator } from './host-locator.js';
import { destroyClient } from './host-probe.js';

/**
 * The application_name of this process's connections: the embedded server's last user tells a connection of
 * a live process from one a process that has just exited left behind for a moment (embedded-postgres/file-lock.ts).
 */
export const APP_NAME = `gateway-${process.pid}`;

/** A connection that does not open in this time is a lost server (a host that vanished drops packets). */
const CONNECT_TIMEOUT_MS = 5_000;

/** `pg.Client` whose host and port are the locator's current choice when it connects. */
export function locatedClient(locator: HostLocator): new (config?: pg.ClientConfig) => pg.Client {
  return class LocatedClient extends pg.Client {
    constructor(config: pg.ClientConfig = {}) {
      const target = locator.target;
      // pg-pool hides the password from enumeration (stack traces): a spread alone would lose it
      super({
        ...config,
        // its own, whatever the pool's (which bounds the wait for a free connection)
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        password: config.password,
        host: target.host,
        port: target.port,
      });
      const untrack = locator.track({ destroy: () => destroyClient(this) }, target);
      this.once('end', untrack);
    }
  };
}

export function newPool(
  locator: HostLocator,
  settings: Record<string, unknown>,
  max: number,
  options?: string,
): pg.Pool {
  const pool = new pg.Pool({
    ...settings,
    Client: locatedClient(locator) as unknown as new () => pg.ClientBase,
    max,
    application_name: APP_NAME,
    ...(options ? { options } : {}),
  });
  pool.on('error', () => {
    // an idle client died (server restart); the pool replaces it on next use
  });
  // A client checked out between two statements of a transaction when the server goes away emits 'error' on
  // itself, where the pool's listener is not: unheard, that event ended the process (the embedded server
  // killed under a running gateway). Its next query fails and the transaction with it; the pool drops the
  // client when it is released with that error.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  return pool;
}
