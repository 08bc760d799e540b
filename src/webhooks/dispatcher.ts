import type { Logger } from 'pino';
import type { Queryable } from '../platform/db.js';
import { type ClaimedAttempt, claimDue } from './deliveries.data.js';
import { type AttemptRunner, LEASE_MARGIN_MS } from './delivery-worker.js';

export interface DispatchLimits {
  /** Attempts held by this process (in flight, waiting for their host, or being recorded). */
  maxHeld: number;
  /** Attempts in flight per target host (host:port) in one process. */
  perHost: number;
  /** Attempts of one host held at once by one process (running + waiting); a multiple of perHost. */
  heldPerHost: number;
  /** Most attempts claimed per statement. */
  claimBatch: number;
  /** Poll interval when nothing is due (work created in this process wakes it at once). */
  idleMs: number;
  /** Pause after a claim that brought attempts, so the next one brings a useful batch. */
  settleMs: number;
}

interface Host {
  key: string;
  running: number;
  /** Claimed attempts waiting for a free slot of their host. */
  waiting: ClaimedAttempt[];
}

/**
 * Claims due attempts from notification_deliveries in batches and runs each on its own, so a slow receiver
 * holds only its own attempts. Per target host a process runs at most `perHost` attempts and holds at most
 * `heldPerHost` (the rest wait in memory, already claimed): the claim statement gives each host only its
 * room, and a host holding half its share sits out. A dead receiver thus holds at most heldPerHost attempts
 * and cannot take the capacity of others. The claim (ticket cleared, lease set) is the durable record of an
 * attempt in flight; the sweeper resumes one whose process died.
 *
 * Claims run back to back while they bring work. A finished attempt wakes the loop only when it brings its
 * host back under the sit-out mark (or frees the process's last room): waking on every outcome made most
 * claims find nothing but full hosts, each a scan of their backlog.
 */
export class DeliveryDispatcher {
  private held = 0;
  private readonly hosts = new Map<string, Host>();
  private stopped = false;
  private wakeUp: (() => void) | undefined;
  /** The last claim was skipped or cut short because the process held maxHeld attempts. */
  private full = false;
  /** A wake-up came while no sleep was waiting for one (e.g. during a claim): the next sleep is skipped. */
  private woken = false;

  constructor(
    private readonly deps: { queue: Queryable; log: Logger; timeoutMs: number },
    private readonly runner: AttemptRunner,
    private readonly limits: DispatchLimits,
  ) {}

  start(): void {
    void this.loop();
  }

  stop(): void {
    this.stopped = true;
    this.wake();
  }

  wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.woken = true;
  }

  private sleep(ms: number, wakeable: boolean): Promise<void> {
    if (wakeable && this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wakeUp === done) this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      if (wakeable) this.wakeUp = done;
    });
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        const limit = Math.min(this.limits.maxHeld - this.held, this.limits.claimBatch);
        this.full = limit <= 0;
        this.woken = false;
        const claimed = limit <= 0 ? [] : await this.claim(limit);
        if (claimed.length === 0) {
          await this.sleep(this.limits.idleMs, true);
          continue;
        }
        for (const attempt of claimed) {
          const h = this.host(attempt.targetHost);
          this.held++;
          if (h.running < this.limits.perHost) this.run(h, attempt);
          else h.waiting.push(attempt);
        }
        await this.sleep(this.limits.settleMs, false);
      } catch (err) {
        if (this.stopped) return;
        this.deps.log.warn({ err }, 'delivery dispatch failed; retrying');
        await this.sleep(1000, false);
      }
    }
  }

  /** Hosts holding half their share or more sit out; the others may take what their share has left. */
  private claim(limit: number): Promise<ClaimedAttempt[]> {
    const skipHosts: string[] = [];
    const holding = new Map<string, number>();
    for (const h of this.hosts.values()) {
      const n = h.running + h.waiting.length;
      if (n >= this.sitOut()) skipHosts.push(h.key);
      else holding.set(h.key, n);
    }
    return claimDue(this.deps.queue, {
      limit,
      skipHosts,
      holding,
      heldPerHost: this.limits.heldPerHost,
      perHost: this.limits.perHost,
      roundMs: this.deps.timeoutMs,
      marginMs: LEASE_MARGIN_MS,
    });
  }

  private sitOut(): number {
    return Math.ceil(this.limits.heldPerHost / 2);
  }

  private host(key: string): Host {
    let h = this.hosts.get(key);
    if (!h) {
      h = { key, running: 0, waiting: [] };
      this.hosts.set(key, h);
    }
    return h;
  }

  /** The host slot frees when the receiver is done; the held count when the outcome is recorded. */
  private run(h: Host, attempt: ClaimedAttempt): void {
    h.running++;
    const sent = () => {
      h.running--;
      if (h.running + h.waiting.length === this.sitOut() - 1) this.wake();
      const next = h.waiting.shift();
      if (next && !this.stopped) this.run(h, next);
      else if (h.running === 0 && h.waiting.length === 0 && this.hosts.get(h.key) === h)
        this.hosts.delete(h.key);
    };
    this.runner
      .run(attempt, sent)
      .catch((err: unknown) => {
        // the lease stays: the sweeper records the attempt as interrupted and schedules the next one
        this.deps.log.error({ err, deliveryId: attempt.id }, 'delivery attempt could not be recorded');
      })
      .finally(() => {
        this.held--;
        if (this.full) this.wake();
      });
  }
}
