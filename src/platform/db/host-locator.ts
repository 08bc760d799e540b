import pg from 'pg';
import { describeHost, type HostAddress, type HostList, type SessionAttrs } from './hosts.js';

export interface LocatorOptions {
  /** How long a search may go on before the loss is reported as an error (DB_FAILOVER_TIMEOUT_MS). */
  failoverTimeoutMs: number;
  /** The probes' application_name (the embedded server tells a live process's connections by it). */
  applicationName: string;
  log?: { warn(message: string): void; error(message: string): void };
}

/** One probe connection's limit: a host that does not answer in this time is skipped for this round. */
const PROBE_TIMEOUT_MS = 2_000;
const SEARCH_EVERY_MS = 250;
const HEARTBEAT_EVERY_MS = 1_000;
/** A current host that does not answer the heartbeat in this time is lost. */
const HEARTBEAT_TIMEOUT_MS = 5_000;

/** A connection that can be cut: its statements fail at once ("Connection terminated"), its pool drops it. */
export interface Closable {
  destroy(): void;
}

const STATE =
  "SELECT pg_is_in_recovery() AS standby, current_setting('transaction_read_only') = 'on' AS read_only";

interface Probe {
  host: HostAddress;
  standby: boolean;
  readOnly: boolean;
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

  get hosts(): readonly HostAddress[] {
    return this.list.hosts;
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

  /** One round over every host; throws when none fits (at start, where a supervisor restarts the process). */
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
    this.searching = this.search().finally(() => {
      this.searching = null;
    });
  }

  /** Resolves once no search is going on (at once when none is). */
  settled(): Promise<void> {
    return this.searching ?? Promise.resolve();
  }

  close(): void {
    this.closed = true;
    if (this.heartbeat) clearInterval(this.heartbeat.timer);
    this.heartbeat?.client?.end().catch(() => undefined);
  }

  private heartbeat:
    | { timer: NodeJS.Timeout; client: pg.Client | null; host: HostAddress | null }
    | undefined;

  /**
   * A host that vanishes without closing its connections (a network partition, a machine powered off) fails
   * no statement: they wait on TCP for many minutes, and nothing would start a search. For long-running
   * processes one connection asks the current host every second whether it is there and still fits (a
   * primary demoted in place is read-only); no answer within HEARTBEAT_TIMEOUT_MS is a loss, and the
   * connections to that host are cut so that what waits on them is answered (503) instead of hanging.
   */
  startHeartbeat(): void {
    if (this.heartbeat || this.closed) return;
    let busy = false;
    const timer = setInterval(() => {
      if (busy || this.searching || this.closed) return;
      busy = true;
      void this.beat().finally(() => {
        busy = false;
      });
    }, HEARTBEAT_EVERY_MS);
    timer.unref();
    this.heartbeat = { timer, client: null, host: null };
  }

  private async beat(): Promise<void> {
    const beat = this.heartbeat!;
    const host = this.current;
    if (beat.client && beat.host !== host) {
      void beat.client.end().catch(() => undefined);
      beat.client = null;
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      if (!beat.client) {
        beat.client = this.client(host);
        beat.host = host;
        await beat.client.connect();
      }
      const answer = beat.client.query<{ standby: boolean; read_only: boolean }>(STATE);
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer')), HEARTBEAT_TIMEOUT_MS);
      });
      const { rows } = await Promise.race([answer, late]);
      if (!fits({ host, standby: rows[0]!.standby, readOnly: rows[0]!.read_only }, this.list.attrs))
        throw new Error('no longer fits');
    } catch {
      const client = beat.client;
      beat.client = null;
      if (client)
        (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
      if (this.current === host && !this.closed) {
        // the host is silent, not just one connection lost: what waits on it would wait for TCP's timeout
        this.cut(host);
        this.lost();
      }
    } finally {
      clearTimeout(timer);
    }
  }

  private cut(host: HostAddress): void {
    for (const [connection, at] of this.connections) {
      if (at === host) connection.destroy();
    }
  }

  private client(host: HostAddress): pg.Client {
    const client = new pg.Client({
      ...this.list.settings,
      host: host.host,
      port: host.port,
      connectionTimeoutMillis: PROBE_TIMEOUT_MS,
      application_name: this.options.applicationName,
    });
    client.on('error', () => undefined);
    return client;
  }

  private async search(): Promise<void> {
    const started = Date.now();
    let reported = false;
    const previous = this.current;
    while (!this.closed) {
      const host = await this.round();
      if (host) {
        this.current = host;
        if (host !== previous) {
          this.options.log?.warn(`PostgreSQL: now using ${describeHost(host)}`);
          this.cut(previous);
        }
        for (const fn of this.found) queueMicrotask(fn);
        return;
      }
      if (!reported && Date.now() - started >= this.options.failoverTimeoutMs) {
        reported = true;
        this.options.log?.error(
          `PostgreSQL: no ${this.list.attrs} host among ${this.describe()} for ${this.options.failoverTimeoutMs} ms (DB_FAILOVER_TIMEOUT_MS); still looking`,
        );
      }
      await new Promise((r) => setTimeout(r, SEARCH_EVERY_MS));
    }
  }

  private async round(): Promise<HostAddress | null> {
    const probes = await Promise.all(this.list.hosts.map((h) => this.probe(h)));
    const fitting = probes.filter((p): p is Probe => p !== null && fits(p, this.list.attrs));
    if (this.list.attrs === 'prefer-standby' && fitting.some((p) => p.standby)) {
      return pick(
        fitting.filter((p) => p.standby),
        this.current,
      );
    }
    return pick(fitting, this.current);
  }

  private async probe(host: HostAddress): Promise<Probe | null> {
    const client = this.client(host);
    try {
      await client.connect();
      const { rows } = await client.query<{ standby: boolean; read_only: boolean }>(STATE);
      this.failures.delete(host);
      return { host, standby: rows[0]!.standby, readOnly: rows[0]!.read_only };
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

function fits(p: Probe, attrs: SessionAttrs): boolean {
  switch (attrs) {
    case 'read-write':
      return !p.readOnly;
    case 'read-only':
      return p.readOnly;
    case 'primary':
      return !p.standby;
    case 'standby':
      return p.standby;
    case 'any':
    case 'prefer-standby':
      return true;
  }
}

/** The current host if it fits, else the first that does in the string's order. */
function pick(fitting: Probe[], current: HostAddress): HostAddress | null {
  return (fitting.find((p) => p.host === current) ?? fitting[0])?.host ?? null;
}
