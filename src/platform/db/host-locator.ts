import { Heartbeat } from './heartbeat.js';
import { type Probe, pick, probeClient, readState } from './host-probe.js';
import { describeHost, type HostAddress, type HostList } from './hosts.js';

export interface LocatorOptions {
  /** How long a search may go on before the loss is reported as an error (DB_FAILOVER_TIMEOUT_MS). */
  failoverTimeoutMs: number;
  /** The probes' application_name (the embedded server tells a live process's connections by it). */
  applicationName: string;
  log?: { warn(message: string): void; error(message: string): void };
}

const SEARCH_EVERY_MS = 250;

/** A connection that can be cut: its statements fail at once ("Connection terminated"), its pool drops it. */
export interface Closable {
  destroy(): void;
}

/**
 * Which of a connection string's hosts new connections go to, with libpq's `target_session_attrs`
 * semantics (read-write: `transaction_read_only` is off). It is asked again only when a connection to the
 * current host is lost (`lost()`): then every host is probed every SEARCH_EVERY_MS until one fits, the
 * current one first if it still does (so a primary that comes back beside a promoted standby is not taken
 * back). While it searches, `available` is false and the pools fail fast instead of waiting.
 */
export class HostLocator {
  private current: HostAddress;
  private searching: Promise<void> | null = null;
  private closed = false;
  private readonly found = new Set<() => void>();
  /** Open connections and the host each went to: those to a host left behind are cut (`track`). */
  private readonly connections = new Map<Closable, HostAddress>();
  /** Why each host that could not be probed in the last round could not. */
  private readonly failures = new Map<HostAddress, string>();

  constructor(
    private readonly list: HostList,
    private readonly options: LocatorOptions,
  ) {
    this.current = list.hosts[0]!;
  }

  get target(): HostAddress {
    return this.current;
  }

  get available(): boolean {
    return this.searching === null;
  }

  /**
   * A connection made to `host`, until it ends. When a search moves to another host, the connections to the
   * old one are cut: a host that vanished without closing them (a network partition, a powered-off machine)
   * would otherwise leave their statements waiting on TCP for many minutes, and their requests with them.
   */
  track(connection: Closable, host: HostAddress): () => void {
    this.connections.set(connection, host);
    return () => this.connections.delete(connection);
  }

  /** Called each time a search ends with a host. */
  onFound(fn: () => void): () => void {
    this.found.add(fn);
    return () => this.found.delete(fn);
  }

  /** One round over every host; throws when none fits (at start: a command fails, serve and worker try again). */
  async locate(): Promise<void> {
    const host = await this.round();
    if (!host) {
      const why = [...this.failures].map(([h, reason]) => `${describeHost(h)}: ${reason}`).join('; ');
      throw new Error(`no ${this.list.attrs} PostgreSQL among ${this.describe()}${why ? ` (${why})` : ''}`);
    }
    this.current = host;
  }

  /** A connection to the current host failed: find the host to use (once, however many report it). */
  lost(): void {
    if (this.searching || this.closed) return;
    const search = this.search();
    this.searching = search;
    void search.finally(() => {
      if (this.searching === search) this.searching = null;
    });
  }

  close(): void {
    this.closed = true;
    this.heartbeat?.stop();
  }

  private heartbeat: Heartbeat | undefined;

  /** Long-running processes: a current host that goes silent is lost too (heartbeat.ts). */
  startHeartbeat(): void {
    if (this.closed) return;
    this.heartbeat ??= new Heartbeat(this, this.list, this.options.applicationName);
  }

  /** The heartbeat's report: the host is silent, not one connection lost, so what waits on it is cut too. */
  silent(host: HostAddress): void {
    if (this.current !== host || this.closed) return;
    this.cut(host);
    this.lost();
  }

  private cut(host: HostAddress): void {
    for (const [connection, at] of this.connections) {
      if (at === host) connection.destroy();
    }
  }

  private async search(): Promise<void> {
    const started = Date.now();
    let reported = false;
    let rounds = 0;
    const previous = this.current;
    while (!this.closed) {
      const host = await this.round();
      rounds += 1;
      if (host) {
        this.current = host;
        this.searching = null; // before anyone is told, so that what they start is not refused
        // another host, or the same one back after a round found none (a lone connection lost is not told)
        if (host !== previous || rounds > 1) {
          this.options.log?.warn(
            `PostgreSQL: now using ${describeHost(host)} (after ${Date.now() - started} ms without a ${this.list.attrs} host)`,
          );
          if (host !== previous) this.cut(previous);
        }
        for (const fn of this.found) queueMicrotask(fn);
        return;
      }
      if (rounds === 1) {
        const why = [...this.failures].map(([h, reason]) => `${describeHost(h)}: ${reason}`).join('; ');
        this.options.log?.warn(
          `PostgreSQL: no ${this.list.attrs} host among ${this.describe()}${why ? ` (${why})` : ''}; requests answer 503 while it looks`,
        );
      }
      if (!reported && Date.now() - started >= this.options.failoverTimeoutMs) {
        reported = true;
        const why = [...this.failures].map(([h, reason]) => `${describeHost(h)}: ${reason}`).join('; ');
        this.options.log?.error(
          `PostgreSQL: no ${this.list.attrs} host among ${this.describe()} for ${this.options.failoverTimeoutMs} ms (DB_FAILOVER_TIMEOUT_MS)${why ? ` (${why})` : ''}; still looking`,
        );
      }
      await new Promise((r) => setTimeout(r, SEARCH_EVERY_MS));
    }
  }

  private async round(): Promise<HostAddress | null> {
    const probes = await Promise.all(this.list.hosts.map((h) => this.probe(h)));
    return pick(
      probes.filter((p): p is Probe => p !== null),
      this.list.attrs,
      this.current,
    );
  }

  private async probe(host: HostAddress): Promise<Probe | null> {
    const client = probeClient(this.list, host, this.options.applicationName);
    try {
      await client.connect();
      const state = await readState(client, host);
      // a host that answers but is not what is looked for is told as what it is (a standby, read-only)
      if (state.standby || state.readOnly) {
        this.failures.set(host, state.standby ? 'a standby (in recovery)' : 'read-only');
      } else this.failures.delete(host);
      return state;
    } catch (err) {
      this.failures.set(host, err instanceof Error ? err.message : String(err));
      return null;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  private describe(): string {
    return this.list.hosts.map(describeHost).join(', ');
  }
}
