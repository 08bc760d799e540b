import type { Logger } from 'pino';
import type { Queryable } from '../platform/db/db.js';
import { type ClaimedAttempt, claimDue, type HostRoom, releaseClaims } from './deliveries.data.js';
import { type DeliveryAttempts, LEASE_MARGIN_MS } from './delivery-attempts.js';
import { fanOutPending, NO_ROOM } from './fanout.js';

export interface DispatchLimits {
  /** Attempts held by this process (in flight, waiting for their host, or being recorded). */
  maxHeld: number;
  /** Attempts in flight per target host (host:port) in one process. */
  perHost: number;
  /** Attempts of one host held at once by one process (running + waiting); a multiple of perHost. */
  heldPerHost: number;
  /** Attempts of one account held at once by one process, over all its hosts (its fair share). */
  heldPerAccount: number;
  /** Most attempts claimed per statement. */
  claimBatch: number;
  /** Most facts fanned out per statement. */
  fanOutBatch: number;
  /** Fan-out claims first attempts once this much room is free (fewer, fuller statements). */
  minFanOutRoom: number;
  /** Pause when no fact is waiting: the most a fact recorded by another process waits to be fanned out. */
  fanOutIdleMs: number;
  /**
   * Facts committed by this process are fanned out within this long (factsCommitted): one fan-out for all the
   * commits of that span rather than one per commit.
   */
  factsWakeMs: number;
  /** Poll interval for due attempts when none is known (work due in this process wakes it at once). */
  claimIdleMs: number;
  /** Pause after a round that brought work, so the next one brings a useful batch. */
  settleMs: number;
}

interface Host {
  key: string;
  running: number;
  /** Claimed attempts waiting for a free slot of their host. */
  waiting: ClaimedAttempt[];
}

/**
 * The delivery engine of one process. Each round fans out facts not fanned out yet, claiming their first
 * attempts for this process within its room, then claims due attempts (retries, resends, first attempts a
 * host had no room for, work other processes left), and runs every attempt on its own, so a slow receiver
 * holds only its own attempts. Per target host a process runs at most `perHost` attempts and holds at most
 * `heldPerHost` (the rest wait in memory, already claimed); fan-out and claims give each host only its room,
 * and for claims a host holding half its share sits out. A dead receiver thus holds at most heldPerHost
 * attempts and cannot take the capacity of others. Accounts get the same treatment over all their hosts
 * (heldPerAccount, sitting out at half of it): an account aiming at many dead hosts (webhooks, or a postback
 * URL per sale) holds at most its share, first attempts and retries alike, and never the whole process.
 * A claim (no ticket, lease set) is the durable record of an attempt in flight; the sweeper resumes one
 * whose process died.
 *
 * Fan-out is paced by room: it takes facts as attempts finish (a backlog waits as facts, not as due
 * deliveries that would each need a claim), and when there is no room at all it still fans out every
 * fanOutIdleMs, leaving the deliveries due, so facts for other hosts are never held back by full ones.
 * Claims run back to back while they bring work; a finished attempt wakes them only when it brings its host
 * back under the sit-out mark (or frees the process's last room): waking on every outcome made most claims
 * find nothing but full hosts, each a scan of their backlog.
 */
export class DeliveryDispatcher {
  private held = 0;
  private readonly hosts = new Map<string, Host>();
  /** Attempts held per account (running, waiting for their host, or being recorded). */
  private readonly accounts = new Map<number, number>();
  /** Attempts running (sending, or writing their outcome). */
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;
  private wakeUp: (() => void) | undefined;
  /** The last claim was skipped or cut short because the process held maxHeld attempts. */
  private full = false;
  /** A wake-up came while no sleep was waiting for one (e.g. during a claim): the next sleep is skipped. */
  private woken = false;
  /** The last round skipped fan-out for want of room: a finished attempt ends the pause. */
  private waitingForRoom = false;
  /** A wake-up already planned for facts committed in this process. */
  private factsWake: NodeJS.Timeout | undefined;
  /** Facts committed in this process since the last round began: the next idle pause is skipped. */
  private factsPending = false;

  constructor(
    private readonly deps: { queue: Queryable; log: Logger; timeoutMs: number },
    private readonly runner: DeliveryAttempts,
    private readonly limits: DispatchLimits,
  ) {}

  private done: Promise<void> = Promise.resolve();

  start(): void {
    this.done = this.loop();
  }

  /**
   * Ends the loop after its current round. Claimed attempts still waiting for their host are handed back
   * (due at once, for any process) rather than left to run out their leases and be logged as interrupted;
   * attempts in flight finish and their outcomes are written.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.factsWake);
    this.wake();
    await this.done;
    const waiting = [...this.hosts.values()].flatMap((h) => h.waiting.splice(0));
    this.held -= waiting.length;
    for (const attempt of waiting) this.release(attempt.accountId);
    if (waiting.length > 0)
      await releaseClaims(this.deps.queue, waiting).catch((err: unknown) =>
        this.deps.log.warn({ err }, 'could not hand back claimed attempts; their leases will run out'),
      );
    await Promise.allSettled(this.inFlight);
  }

  /**
   * This process committed notification facts: fan out within factsWakeMs instead of at the next idle poll
   * (fanOutIdleMs). Facts committed while a round runs are fanned out by the next one, without the idle
   * pause; a dispatcher waiting for room keeps waiting for it.
   */
  factsCommitted(): void {
    if (this.factsWake || this.stopped) return;
    this.factsWake = setTimeout(() => {
      this.factsWake = undefined;
      if (this.waitingForRoom) return; // fan-out waits for room, not for facts
      this.factsPending = true;
      this.wakeUp?.();
    }, this.limits.factsWakeMs);
    this.factsWake.unref();
  }

  /** Work may be due (a retry, a resend, a sweep): claim at once. */
  wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.woken = true;
  }

  private sleep(ms: number, wakeable: boolean): Promise<void> {
    if (wakeable && this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    if (wakeable && this.factsPending) return Promise.resolve();
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
    let lastFanOut = 0;
    let lastClaim = 0;
    let dueLeft = false;
    while (!this.stopped) {
      try {
        const woken = this.woken;
        this.woken = false;
        this.factsPending = false; // this round's fan-out starts after those commits
        this.waitingForRoom = false;
        let more = false;
        const now = Date.now();
        const room = this.room();
        const claimFirst = room.free >= this.limits.minFanOutRoom;
        if (claimFirst || now - lastFanOut >= this.limits.fanOutIdleMs) {
          lastFanOut = now;
          const limit = claimFirst ? Math.min(this.limits.fanOutBatch, room.free) : this.limits.fanOutBatch;
          // room.free bounds the claims too: a fact may have several targets
          const out = claimFirst
            ? await fanOutPending(this.deps.queue, limit, room, 0, room.free)
            : await fanOutPending(this.deps.queue, limit, NO_ROOM);
          this.accept(out.claimed);
          more = out.facts === limit;
          dueLeft ||= out.deliveries > out.claimed.length;
        } else this.waitingForRoom = true;

        const claimLimit = Math.min(this.limits.maxHeld - this.held, this.limits.claimBatch);
        this.full = claimLimit <= 0;
        if (!this.full && (woken || dueLeft || now - lastClaim >= this.limits.claimIdleMs)) {
          lastClaim = now;
          dueLeft = false;
          const claimed = await this.claim(claimLimit);
          this.accept(claimed);
          more ||= claimed.length > 0;
        }
        await this.sleep(more ? this.limits.settleMs : this.limits.fanOutIdleMs, !more);
      } catch (err) {
        if (this.stopped) return;
        this.deps.log.warn({ err }, 'delivery dispatch failed; retrying');
        await this.sleep(1000, false);
      }
    }
  }

  /**
   * What this process holds per host. For first attempts (fan-out) every host may fill its share, and `free`
   * is the room left over all of them; for claims a host holding half its share or more sits out.
   */
  private room(): HostRoom & {
    free: number;
    sittingOut: string[];
    belowSitOut: Map<string, number>;
    accountsSittingOut: number[];
    accountsBelowSitOut: Map<number, number>;
  } {
    const holding = new Map<string, number>();
    const belowSitOut = new Map<string, number>();
    const sittingOut: string[] = [];
    let free = this.hosts.size === 0 ? this.limits.fanOutBatch : 0;
    for (const h of this.hosts.values()) {
      const n = h.running + h.waiting.length;
      holding.set(h.key, n);
      free += Math.max(0, this.limits.heldPerHost - n);
      if (n >= this.sitOut()) sittingOut.push(h.key);
      else belowSitOut.set(h.key, n);
    }
    const accountsSittingOut: number[] = [];
    const accountsBelowSitOut = new Map<number, number>();
    const accountSitOut = Math.ceil(this.limits.heldPerAccount / 2);
    for (const [account, n] of this.accounts) {
      if (n >= accountSitOut) accountsSittingOut.push(account);
      else accountsBelowSitOut.set(account, n);
    }
    return {
      free: Math.min(free, this.limits.maxHeld - this.held),
      holding,
      sittingOut,
      belowSitOut,
      accountHolding: this.accounts,
      accountsSittingOut,
      accountsBelowSitOut,
      heldPerAccount: this.limits.heldPerAccount,
      heldPerHost: this.limits.heldPerHost,
      perHost: this.limits.perHost,
      roundMs: this.deps.timeoutMs,
      marginMs: LEASE_MARGIN_MS,
    };
  }

  private accept(claimed: readonly ClaimedAttempt[]): void {
    for (const attempt of claimed) {
      const h = this.host(attempt.targetHost);
      this.held++;
      this.accounts.set(attempt.accountId, (this.accounts.get(attempt.accountId) ?? 0) + 1);
      if (h.running < this.limits.perHost) this.run(h, attempt);
      else h.waiting.push(attempt);
    }
  }

  /**
   * Hosts and accounts holding half their share or more sit out; the others may take what their share has
   * left.
   */
  private claim(limit: number): Promise<ClaimedAttempt[]> {
    const room = this.room();
    return claimDue(this.deps.queue, {
      ...room,
      limit,
      skipHosts: room.sittingOut,
      holding: room.belowSitOut,
      skipAccounts: room.accountsSittingOut,
      accountHolding: room.accountsBelowSitOut,
    });
  }

  private release(accountId: number): void {
    const n = (this.accounts.get(accountId) ?? 0) - 1;
    if (n > 0) this.accounts.set(accountId, n);
    else this.accounts.delete(accountId);
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
  private run(h: Host, attempt: ClaimedAttempt, waited = false): void {
    h.running++;
    const sent = () => {
      h.running--;
      if (h.running + h.waiting.length === this.sitOut() - 1) this.wake();
      else if (this.waitingForRoom) this.wakeUp?.();
      const next = h.waiting.shift();
      if (next && !this.stopped) this.run(h, next, true);
      else if (h.running === 0 && h.waiting.length === 0 && this.hosts.get(h.key) === h)
        this.hosts.delete(h.key);
    };
    const running = this.runner
      .run(attempt, sent, waited)
      .catch((err: unknown) => {
        // the lease stays: the sweeper records the attempt as interrupted and schedules the next one
        this.deps.log.error({ err, deliveryId: attempt.id }, 'delivery attempt could not be recorded');
      })
      .finally(() => {
        this.held--;
        this.release(attempt.accountId);
        this.inFlight.delete(running);
        if (this.full) this.wake();
      });
    this.inFlight.add(running);
  }
}
