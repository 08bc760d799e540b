import type { Logger } from 'pino';
import type { Db } from '../platform/db.js';
import type { Queue } from '../platform/queue.js';
import { Batcher } from './batcher.js';
import { type ClaimedAttempt, claimAttempts } from './deliveries.data.js';
import { type AttemptRunner, LEASE_MARGIN_MS } from './delivery-worker.js';

export interface DispatchLimits {
  /** Jobs held by this process (attempts in flight, waiting for their host, or being recorded). */
  maxHeld: number;
  /** Attempts in flight per target host (host:port) in one process. */
  perHost: number;
  /** Jobs of one host held at once by one process (running + waiting); a multiple of perHost. */
  heldPerHost: number;
  /** Most jobs claimed per fetch. */
  fetchBatch: number;
  /** Poll interval when there is nothing to do (new work in this process wakes it at once). */
  idleMs: number;
  /** Pause after a fetch that brought jobs, so the next one brings a useful batch. */
  settleMs: number;
}

interface Host {
  key: string;
  running: number;
  /** Claimed attempts waiting for a free slot of their host. */
  waiting: ClaimedAttempt[];
}

type DeliverJob = { id: string; data: { deliveryId: number; ticket: string }; group: string | null };

/**
 * Pulls `notifications.deliver` jobs in batches and runs every attempt on its own, so a slow receiver holds
 * only its own attempts. Per target host (the job's pg-boss group) a process runs at most `perHost` attempts
 * and holds at most `heldPerHost` (the rest wait in memory, already claimed); a host holding half of that
 * sits out the next fetches (ignoreGroups), and jobs beyond it are given back to the queue. A dead receiver
 * thus holds at most heldPerHost jobs and cannot take the capacity of others.
 * A job is settled in pg-boss as soon as its attempt is claimed: from then on the delivery row (ticket
 * cleared, lease set) is the durable record, and the sweeper resumes an attempt whose process died.
 */
export class DeliveryDispatcher {
  private held = 0;
  private readonly hosts = new Map<string, Host>();
  private stopped = false;
  private wakeUp: (() => void) | undefined;
  private readonly completer: Batcher<string>;
  private readonly leaseMs: number;

  constructor(
    private readonly deps: { db: Db; queue: Queue; log: Logger; timeoutMs: number },
    private readonly runner: AttemptRunner,
    private readonly limits: DispatchLimits,
  ) {
    this.completer = new Batcher((ids) => deps.queue.complete('notifications.deliver', ids), 1000, 2);
    // a claimed attempt waits behind at most heldPerHost - perHost others of its host, each bounded by the
    // response timeout; its lease covers that before the sweeper may call it interrupted
    this.leaseMs = Math.ceil(limits.heldPerHost / limits.perHost) * deps.timeoutMs + LEASE_MARGIN_MS;
  }

  start(): void {
    void this.loop();
  }

  stop(): void {
    this.stopped = true;
    this.wake();
  }

  wake(): void {
    this.wakeUp?.();
  }

  private sleep(ms: number, wakeable: boolean): Promise<void> {
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
        const batchSize = Math.min(this.limits.maxHeld - this.held, this.limits.fetchBatch, this.room());
        const jobs =
          batchSize <= 0
            ? []
            : await this.deps.queue.fetch('notifications.deliver', {
                batchSize,
                ignoreGroups: this.busyHosts(),
              });
        if (jobs.length === 0) {
          await this.sleep(this.limits.idleMs, true);
          continue;
        }
        await this.take(jobs);
        await this.sleep(this.limits.settleMs, false);
      } catch (err) {
        if (this.stopped) return;
        this.deps.log.warn({ err }, 'delivery dispatch failed; retrying');
        await this.sleep(1000, false);
      }
    }
  }

  private busy(h: Host): boolean {
    return h.running + h.waiting.length >= this.limits.heldPerHost / 2;
  }

  /** Hosts holding half their share or more sit out the next fetch. */
  private busyHosts(): string[] {
    return [...this.hosts.values()].filter((h) => this.busy(h)).map((h) => h.key);
  }

  /**
   * Size of the next fetch: the room left by the known hosts that take part, or one host's share when none
   * does (jobs of hosts not held yet). Sizing to the room keeps give-backs rare.
   */
  private room(): number {
    let room = 0;
    for (const h of this.hosts.values()) {
      if (!this.busy(h)) room += this.limits.heldPerHost - h.running - h.waiting.length;
    }
    return room > 0 ? room : this.limits.heldPerHost;
  }

  /** Claims the attempts each host has room for (one statement), starts or queues them, gives back the rest. */
  private async take(jobs: DeliverJob[]): Promise<void> {
    const keep: DeliverJob[] = [];
    const giveBack: DeliverJob[] = [];
    const room = new Map<string, number>();
    for (const job of jobs) {
      const key = job.group ?? '';
      const h = this.hosts.get(key);
      const left = room.get(key) ?? this.limits.heldPerHost - (h ? h.running + h.waiting.length : 0);
      room.set(key, left - 1);
      (left > 0 ? keep : giveBack).push(job);
    }
    if (giveBack.length > 0) {
      await this.deps.queue.sendMany(
        this.deps.db,
        'notifications.deliver',
        giveBack.map((j) => ({ data: j.data, options: j.group ? { group: j.group } : {} })),
      );
    }
    const claimed = await claimAttempts(
      this.deps.db,
      keep.map((j) => j.data),
      this.leaseMs,
    );
    for (const job of jobs) this.settle(job.id);
    const groupOf = new Map(keep.map((j) => [j.data.deliveryId, j.group ?? '']));
    for (const attempt of claimed) {
      const h = this.host(groupOf.get(attempt.id) ?? '');
      this.held++;
      if (h.running < this.limits.perHost) this.run(h, attempt);
      else h.waiting.push(attempt);
    }
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
        this.wake();
      });
  }

  private settle(jobId: string): void {
    this.completer.add(jobId).catch((err: unknown) => this.deps.log.warn({ err }, 'could not settle a job'));
  }
}
