import type pg from 'pg';
import { destroyClient, fits, probeClient, readState } from './host-probe.js';
import type { HostAddress, HostList } from './hosts.js';

const EVERY_MS = 1_000;
/** A current host that does not answer in this time is lost. */
const TIMEOUT_MS = 5_000;

/** What the heartbeat watches and tells: the locator. */
export interface Watched {
  readonly target: HostAddress;
  readonly available: boolean;
  /** The current host did not answer, or no longer fits. */
  silent(host: HostAddress): void;
}

/**
 * A host that vanishes without closing its connections (a network partition, a machine powered off) fails
 * no statement: they wait on TCP for many minutes, and nothing would start a search. One connection asks the
 * current host every second whether it is there and still fits (a primary demoted in place is read-only);
 * no answer within TIMEOUT_MS, or a wrong one, is reported. Long-running processes only.
 */
export class Heartbeat {
  private readonly timer: NodeJS.Timeout;
  private client: pg.Client | null = null;
  private host: HostAddress | null = null;
  private busy = false;

  constructor(
    private readonly watched: Watched,
    private readonly list: HostList,
    private readonly applicationName: string,
  ) {
    this.timer = setInterval(() => {
      if (this.busy || !this.watched.available) return;
      this.busy = true;
      void this.beat().finally(() => {
        this.busy = false;
      });
    }, EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    void this.client?.end().catch(() => undefined);
    this.client = null;
  }

  private async beat(): Promise<void> {
    const host = this.watched.target;
    if (this.client && this.host !== host) this.stopClient();
    let timer: NodeJS.Timeout | undefined;
    try {
      if (!this.client) {
        this.client = probeClient(this.list, host, this.applicationName);
        this.host = host;
        await this.client.connect();
      }
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer')), TIMEOUT_MS);
      });
      const state = await Promise.race([readState(this.client, host), late]);
      if (!fits(state, this.list.attrs)) throw new Error('no longer fits');
    } catch {
      if (this.client) destroyClient(this.client);
      this.client = null;
      this.watched.silent(host);
    } finally {
      clearTimeout(timer);
    }
  }

  private stopClient(): void {
    void this.client?.end().catch(() => undefined);
    this.client = null;
  }
}
