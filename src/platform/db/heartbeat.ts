import type pg from 'pg';
import { destroyClient, fits, probeClient, readState } from './host-probe.js';
import type { HostAddress, HostList } from './hosts.js';

const EVERY_MS = 1_000;
/** A current host that has not answered for this long is lost. */
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
 * a wrong answer is reported at once, silence once no answer has come for TIMEOUT_MS. One slow connect or
 * beat on a busy machine is not silence: cutting every connection for it would fail requests a live host
 * was about to answer. Long-running processes only.
 */
export class Heartbeat {
  private readonly timer: NodeJS.Timeout;
  private client: pg.Client | null = null;
  private host: HostAddress | null = null;
  private busy = false;
  /** When the watched host last answered (or began to be watched). */
  private answeredAt = Date.now();

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
    if (this.host !== host) {
      this.stopClient();
      this.host = host;
      this.answeredAt = Date.now();
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      const left = Math.max(this.answeredAt + TIMEOUT_MS - Date.now(), 0);
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer')), left);
      });
      if (!this.client) {
        this.client = probeClient(this.list, host, this.applicationName);
        await Promise.race([this.client.connect(), late]);
      }
      const state = await Promise.race([readState(this.client, host), late]);
      this.answeredAt = Date.now();
      if (!fits(state, this.list.attrs)) this.lose(host);
    } catch {
      if (this.client) destroyClient(this.client);
      this.client = null;
      if (Date.now() - this.answeredAt >= TIMEOUT_MS) this.lose(host);
    } finally {
      clearTimeout(timer);
    }
  }

  private lose(host: HostAddress): void {
    this.stopClient();
    this.host = null;
    this.watched.silent(host);
  }

  private stopClient(): void {
    void this.client?.end().catch(() => undefined);
    this.client = null;
  }
}
