import type pg from 'pg';
import { destroyClient, fits, probeClient, readState } from './host-probe.js';
import type { HostAddress, HostList } from './hosts.js';

const EVERY_MS = 1_000;
/** A current host that has not answered for this long is lost. */
const TIMEOUT_MS = 5_000;
/** However old the last answer, a question is given this long before its silence counts. */
const MIN_WAIT_MS = 1_000;
/** A timer this late means the process itself was held up (its event loop busy), not the host. */
const STALL_MS = 1_000;
/** At most this much of one silence is put down to the process's own stalls: a saturated process still decides. */
const MAX_CREDIT_MS = 10_000;

/** What the heartbeat watches and tells: the locator. */
export interface Watched {
  readonly target: HostAddress;
  /** The current host did not answer, or no longer fits. */
  silent(host: HostAddress): void;
}

/**
 * A host that vanishes without closing its connections (a network partition, a machine powered off) fails
 * no statement: they wait on TCP for many minutes, and nothing would start a search. One connection asks the
 * current host every second whether it is there and still fits (a primary demoted in place is read-only);
 * a wrong answer is reported at once, silence once no answer has come for TIMEOUT_MS. One slow connect or
 * beat on a busy machine is not silence: cutting every connection for it would fail requests a live host
 * was about to answer. Nor is a process that could not listen: while its event loop is held up (a start
 * evaluating its modules, a burst of CPU work on a shared machine), an answer waits unread in its socket, and
 * the time it was held up (up to MAX_CREDIT_MS) is not counted as the host's silence. It beats on while the
 * locator searches: a search that a failed statement started cuts nothing, and the connections still waiting
 * on a silent host are cut only once the heartbeat finds it silent (else they would wait for the search's end,
 * and the requests queued behind them with them). Long-running processes only.
 */
export class Heartbeat {
  private readonly timer: NodeJS.Timeout;
  private client: pg.Client | null = null;
  private host: HostAddress | null = null;
  private busy = false;
  /** When the watched host last answered (or began to be watched), moved on by the time the process stalled. */
  private answeredAt = Date.now();
  /** Up to when stalls have been credited (one stall seen by two timers counts once). */
  private creditedTo = Date.now();
  /** How much the last answer was moved on by stalls since it came. */
  private credit = 0;

  constructor(
    private readonly watched: Watched,
    private readonly list: HostList,
    private readonly applicationName: string,
  ) {
    let due = Date.now() + EVERY_MS;
    this.timer = setInterval(() => {
      this.stalled(due);
      due = Date.now() + EVERY_MS;
      if (this.busy) return;
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
      this.answered();
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      const late = new Promise<never>((_, reject) => {
        const arm = () => {
          const wait = Math.max(this.answeredAt + TIMEOUT_MS - Date.now(), MIN_WAIT_MS);
          const due = Date.now() + wait;
          timer = setTimeout(() => {
            // held up past its time: the answer may be in the socket, unread; ask the clock again
            if (this.stalled(due)) arm();
            // the poll phase reads what came while this timer waited to run, before the silence is decided
            else setImmediate(() => reject(new Error('no answer')));
          }, wait);
        };
        arm();
      });
      if (!this.client) {
        this.client = probeClient(this.list, host, this.applicationName);
        await Promise.race([this.client.connect(), late]);
      }
      const state = await Promise.race([readState(this.client, host), late]);
      this.answered();
      if (!fits(state, this.list.attrs)) this.lose(host);
    } catch {
      if (this.client) destroyClient(this.client);
      this.client = null;
      if (Date.now() - this.answeredAt >= TIMEOUT_MS) this.lose(host);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Whether a timer due at `due` runs only now, the process held up past STALL_MS; that time (counted once,
   * whichever timer saw it first) moves the last answer on.
   */
  private stalled(due: number): boolean {
    const now = Date.now();
    if (now - due <= STALL_MS || this.credit >= MAX_CREDIT_MS) return false;
    const held = Math.min(now - Math.max(due, this.creditedTo), MAX_CREDIT_MS - this.credit);
    if (held > 0) {
      this.answeredAt = Math.min(this.answeredAt + held, now);
      this.credit += held;
      this.creditedTo = now;
    }
    return true;
  }

  private answered(): void {
    this.answeredAt = Date.now();
    this.credit = 0;
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
