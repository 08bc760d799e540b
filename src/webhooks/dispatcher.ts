import type { Logger } from 'pino';
import type { Queryable } from '../platform/db/db.js';
import { isDatabaseUnavailable } from '../platform/db/unavailable.js';
import { type ClaimedAttempt, claimDue, type HostRoom, releaseClaims } from './deliveries.data.js';
import { type DeliveryAttempts, LEASE_MARGIN_MS } from './delivery-attempts.js';
import { fanOutPending, NO_ROOM } from './fanout.js';
import type { AttemptResult } from './http-client.js';

export interface DispatchLimits {
  /** Attempts held by this process (in flight, waiting for their host, or being recorded). */
  maxHeld: number;
  /** Attempts in flight per target host (host:port) in one process. */
  perHost: number;
  /** Attempts of one host held at once by one process (running + waiting); a multiple of perHost. */
  heldPerHost: number;
  /** Attempts of one account held at once by one process in the fast lane, over all its hosts (its fair share). */
  heldPerAccount: number;
  /**
   * The slow lane: attempts to hosts whose recent attempts took slowAfterMs or more (or timed out) are held
   * from this many slots of maxHeld, never from the fast lane's (maxHeld − slowHeld).
   */
  slowHeld: number;
  /** Attempts of one account held in the slow lane (it sits out claims at half of it). */
  slowHeldPerAccount: number;
  /** Attempts in flight per slow host (a hanging receiver holds no more connections than this). */
  slowPerHost: number;
  /** Attempts of one slow host held (running + waiting) in the slow lane (it sits out claims at half of it). */
  slowHeldPerHost: number;
  /**
   * Most attempts one slow-lane claim takes: hanging hosts time out together, and refilling the lane in small
   * claims spreads their next connections (and timeouts) instead of opening hundreds in one moment.
   */
  slowClaimBatch: number;
  /**
   * Hosts of unknown speed (none of their attempts answered yet in this process) are on probation in the fast
   * lane: each holds at most probePerHost attempts, all of them together at most probeHeld.
   */
  probeHeld: number;
  probePerHost: number;
  /** An attempt taking this long (capped at half the response timeout) moves its host to the slow lane. */
  slowAfterMs: number;
  /** How long a host's speed is remembered after the attempt that showed it. */
  speedMemoryMs: number;
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

/** Where an attempt holds its slot: the fast lane (a host known fast), its probe share, or the slow lane. */
type Lane = 'fast' | 'probe' | 'slow';

interface Held {
  attempt: ClaimedAttempt;
  lane: Lane;
  /** When its request started (0 while it waits for its host). */
  started: number;
}

interface Host {
  key: string;
  running: Set<Held>;
  /** Claimed attempts waiting for a free slot of their host. */
  waiting: Held[];
}

/** What this process learned of a host's speed, and when. */
interface Speed {
  slow: boolean;
  at: number;
}

/** Hosts whose speed is remembered at once per process (the oldest are forgotten first). */
const SPEED_MEMORY_SIZE = 10_000;

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
 * Two lanes share the process's maxHeld slots: the slow lane has slowHeld of them, the fast lane the rest. A
 * host whose attempt takes slowAfterMs or more (ended, or still running at that age) is slow: its running
 * attempts move to the slow lane, those waiting for its slot are handed back, and it is claimed from then on
 * only by the slow lane's claim (slowHeldPerHost per host, slowHeldPerAccount per account) until one of its
 * attempts answers within slowAfterMs. Hosts this process has not heard from yet are on probation in the fast
 * lane (probePerHost each, probeHeld in all), so a crowd of new hosts that hang holds a bounded part of the
 * fast lane for slowAfterMs at most. Hanging receivers, however many accounts own them, therefore hold at most
 * the slow lane (plus the attempts they were running when found slow), and hosts known fast keep the rest.
 *
 * Fan-out is paced by room: it takes facts as attempts finish (a backlog waits as facts, not as due
 * deliveries that would each need a claim), and when there is no room at all it still fans out every
 * fanOutIdleMs, leaving the deliveries due, so facts for other hosts are never held back by full ones.
 * Claims run back to back while they bring work; a finished attempt wakes them only when it brings its host
 * back under the sit-out mark (or frees the process's last room): waking on every outcome made most claims
 * find nothing but full hosts, each a scan of their backlog.
 */
export class DeliveryDispatcher {
  private readonly lanes: Record<Lane, number> = { fast: 0, probe: 0, slow: 0 };
  private readonly hosts = new Map<string, Host>();
  /** Speed learned per host (absent: on probation). */
  private readonly speeds = new Map<string, Speed>();
  /** Attempts held per account in the fast lane (probe share included), and in the slow lane. */
  private readonly accounts = new Map<number, number>();
  private readonly slowAccounts = new Map<number, number>();
  /** Attempts running (sending, or writing their outcome). */
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;
  private wakeUp: (() => void) | undefined;
  /** The last claim found a lane without room: an attempt of it ending wakes the claims. */
  private full: Record<Lane, boolean> = { fast: false, probe: false, slow: false };
  /** A wake-up came while no sleep was waiting for one (e.g. during a claim): the next sleep is skipped. */
  private woken = false;
  /** Work may be due for the slow lane (a slow attempt ended): its claim runs next round, not the fast one's. */
  private slowWoken = false;
  /** The last round skipped fan-out for want of room: a finished attempt ends the pause. */
  private waitingForRoom = false;
  /** A wake-up already planned for facts committed in this process. */
  private factsWake: NodeJS.Timeout | undefined;
  /** Facts committed in this process since the last round began: the next idle pause is skipped. */
  private factsPending = false;
  /** Looks for running attempts older than slowAfterMs. */
  private slowWatch: NodeJS.Timeout | undefined;
  private readonly slowAfterMs: number;

  constructor(
    private readonly deps: { queue: Queryable; log: Logger; timeoutMs: number },
    private readonly runner: DeliveryAttempts,
    private readonly limits: DispatchLimits,
  ) {
    this.slowAfterMs = Math.max(1, Math.min(limits.slowAfterMs, Math.floor(deps.timeoutMs / 2)));
  }

  private done: Promise<void> = Promise.resolve();

  start(): void {
    this.done = this.loop();
    const every = Math.max(10, Math.min(250, Math.floor(this.slowAfterMs / 4)));
    this.slowWatch = setInterval(() => this.watchSlow(), every);
    this.slowWatch.unref();
  }

  /**
   * Ends the loop after its current round. Claimed attempts still waiting for their host are handed back
   * (due at once, for any process) rather than left to run out their leases and be logged as interrupted;
   * attempts in flight finish and their outcomes are written.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.factsWake);
    clearInterval(this.slowWatch);
    this.wake();
    await this.done;
    const waiting = [...this.hosts.values()].flatMap((h) => h.waiting.splice(0));
    for (const w of waiting) this.release(w);
    if (waiting.length > 0)
      await releaseClaims(
        this.deps.queue,
        waiting.map((w) => w.attempt),
      ).catch((err: unknown) => {
        if (!isDatabaseUnavailable(err))
          this.deps.log.warn({ err }, 'could not hand back claimed attempts; their leases will run out');
      });
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

  /** The slow lane has room again or a slow host became claimable: its claim runs at once. */
  private wakeSlow(): void {
    this.slowWoken = true;
    this.wakeUp?.();
  }

  private sleep(ms: number, wakeable: boolean): Promise<void> {
    if (wakeable && this.slowWoken) return Promise.resolve();
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
    let lastSlowClaim = 0;
    let dueLeft = false;
    while (!this.stopped) {
      try {
        const woken = this.woken;
        this.woken = false;
        const slowWoken = this.slowWoken;
        this.slowWoken = false;
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

        const fastLimit = Math.min(this.fastRoom(), this.limits.claimBatch);
        const slowLimit = Math.min(this.limits.slowHeld - this.lanes.slow, this.limits.slowClaimBatch);
        this.full.fast = fastLimit <= 0;
        this.full.slow = slowLimit <= 0;
        // the lanes' claims run on their own triggers: attempts ending in the slow lane (many at once when
        // hanging hosts time out together) wake its claim only, not the fast claim's scan
        const fastDue: boolean =
          fastLimit > 0 && (woken || dueLeft || now - lastClaim >= this.limits.claimIdleMs);
        const slowDue: boolean =
          slowLimit > 0 && (woken || slowWoken || dueLeft || now - lastSlowClaim >= this.limits.claimIdleMs);
        dueLeft &&= !(fastDue || slowDue);
        if (fastDue) {
          lastClaim = now;
          const claimed = await this.claimFast(fastLimit);
          this.accept(claimed);
          more ||= claimed.length > 0;
        }
        if (slowDue) {
          lastSlowClaim = now;
          const claimed = await this.claimSlow(slowLimit);
          this.accept(claimed);
          more ||= claimed.length > 0;
        }
        await this.sleep(more ? this.limits.settleMs : this.limits.fanOutIdleMs, !more);
      } catch (err) {
        if (this.stopped) return;
        // a database being looked for is logged once, by the search: its rounds wait for it quietly
        if (!isDatabaseUnavailable(err)) this.deps.log.warn({ err }, 'delivery dispatch failed; retrying');
        await this.sleep(1000, false);
      }
    }
  }

  /** Free slots of the fast lane (maxHeld minus the slow lane's share, probe share included). */
  private fastRoom(): number {
    return this.limits.maxHeld - this.limits.slowHeld - this.lanes.fast - this.lanes.probe;
  }

  /** 'fast', 'slow', or undefined while the host is on probation (unknown, or its speed forgotten). */
  private speed(host: string): 'fast' | 'slow' | undefined {
    const s = this.speeds.get(host);
    if (!s) return undefined;
    if (Date.now() - s.at > this.limits.speedMemoryMs) {
      this.speeds.delete(host);
      return undefined;
    }
    return s.slow ? 'slow' : 'fast';
  }

  private laneOf(host: string): Lane {
    const speed = this.speed(host);
    return speed === 'fast' ? 'fast' : speed === 'slow' ? 'slow' : 'probe';
  }

  private remember(host: string, slow: boolean): void {
    this.speeds.delete(host); // re-inserted last: the oldest entry is forgotten first when full
    if (this.speeds.size >= SPEED_MEMORY_SIZE) {
      const oldest = this.speeds.keys().next();
      if (!oldest.done) this.speeds.delete(oldest.value);
    }
    this.speeds.set(host, { slow, at: Date.now() });
  }

  /**
   * The fast lane's room, for fan-out and its claim: hosts known fast take up to heldPerHost each, hosts on
   * probation probePerHost each and probeHeld together, slow hosts nothing (their attempts are left due for
   * the slow lane's claim). `free` is the fast lane's free room over the fast hosts it holds (the whole batch
   * when it holds none); for claims a fast host holding half its share or more sits out, as does a host on
   * probation at its limit.
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
    const known: string[] = [];
    let fastHosts = 0;
    let free = 0;
    for (const [key] of this.speeds) {
      const speed = this.speed(key);
      if (speed === 'fast') known.push(key);
      else if (speed === 'slow') {
        // no room here (as a host on probation would be, it is held over its limit); claims skip it
        holding.set(key, this.limits.heldPerHost);
        sittingOut.push(key);
      }
    }
    for (const h of this.hosts.values()) {
      const n = h.running.size + h.waiting.length;
      const speed = this.speed(h.key);
      if (speed === 'slow') continue;
      holding.set(h.key, n);
      if (speed === 'fast') {
        fastHosts++;
        free += Math.max(0, this.limits.heldPerHost - n);
        if (n >= this.sitOut()) sittingOut.push(h.key);
        else belowSitOut.set(h.key, n);
      } else if (n >= this.limits.probePerHost) sittingOut.push(h.key);
      else belowSitOut.set(h.key, n);
    }
    if (fastHosts === 0) free = this.limits.fanOutBatch;
    const accountsSittingOut: number[] = [];
    const accountsBelowSitOut = new Map<number, number>();
    const accountSitOut = Math.ceil(this.limits.heldPerAccount / 2);
    for (const [account, n] of this.accounts) {
      if (n >= accountSitOut) accountsSittingOut.push(account);
      else accountsBelowSitOut.set(account, n);
    }
    return {
      free: Math.max(0, Math.min(free, this.fastRoom())),
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
      probation: {
        known,
        perHost: this.limits.probePerHost,
        room: Math.max(0, this.limits.probeHeld - this.lanes.probe),
      },
    };
  }

  private accept(claimed: readonly ClaimedAttempt[]): void {
    for (const attempt of claimed) {
      const h = this.host(attempt.targetHost);
      const held: Held = { attempt, lane: this.laneOf(attempt.targetHost), started: 0 };
      this.lanes[held.lane]++;
      const accounts = this.accountsOf(held.lane);
      accounts.set(attempt.accountId, (accounts.get(attempt.accountId) ?? 0) + 1);
      const inFlight = held.lane === 'slow' ? this.limits.slowPerHost : this.limits.perHost;
      if (h.running.size < inFlight) this.run(h, held);
      else h.waiting.push(held);
    }
  }

  private accountsOf(lane: Lane): Map<number, number> {
    return lane === 'slow' ? this.slowAccounts : this.accounts;
  }

  /**
   * The fast lane's claim: hosts known fast and hosts on probation, within their room; slow hosts, hosts and
   * accounts holding half their share or more sit out.
   */
  private claimFast(limit: number): Promise<ClaimedAttempt[]> {
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

  /**
   * The slow lane's claim: only slow hosts below half their slow-lane share (slowHeldPerHost), accounts below
   * half theirs, oldest first.
   */
  private claimSlow(limit: number): Promise<ClaimedAttempt[]> {
    const hosts: string[] = [];
    const holding = new Map<string, number>();
    for (const [key] of this.speeds) {
      if (this.speed(key) !== 'slow') continue;
      const h = this.hosts.get(key);
      const n = h ? h.running.size + h.waiting.length : 0;
      if (n >= Math.ceil(this.limits.slowHeldPerHost / 2)) continue;
      hosts.push(key);
      if (n > 0) holding.set(key, n);
    }
    if (hosts.length === 0) return Promise.resolve([]);
    const skipAccounts: number[] = [];
    const accountHolding = new Map<number, number>();
    const sitOut = Math.ceil(this.limits.slowHeldPerAccount / 2);
    for (const [account, n] of this.slowAccounts) {
      if (n >= sitOut) skipAccounts.push(account);
      else accountHolding.set(account, n);
    }
    return claimDue(this.deps.queue, {
      limit,
      onlyHosts: hosts,
      skipHosts: [],
      holding,
      heldPerHost: this.limits.slowHeldPerHost,
      skipAccounts,
      accountHolding,
      heldPerAccount: this.limits.slowHeldPerAccount,
      perHost: this.limits.slowPerHost,
      roundMs: this.deps.timeoutMs,
      marginMs: LEASE_MARGIN_MS,
      // only slow hosts are candidates, each within slowHeldPerHost: no probation here
    });
  }

  /** Drops a held attempt from the counts of its lane and account. */
  private release(held: Held): void {
    this.lanes[held.lane]--;
    const accounts = this.accountsOf(held.lane);
    const n = (accounts.get(held.attempt.accountId) ?? 0) - 1;
    if (n > 0) accounts.set(held.attempt.accountId, n);
    else accounts.delete(held.attempt.accountId);
  }

  private sitOut(): number {
    return Math.ceil(this.limits.heldPerHost / 2);
  }

  private host(key: string): Host {
    let h = this.hosts.get(key);
    if (!h) {
      h = { key, running: new Set(), waiting: [] };
      this.hosts.set(key, h);
    }
    return h;
  }

  /** Running attempts older than slowAfterMs make their host slow. */
  private watchSlow(): void {
    const since = performance.now() - this.slowAfterMs;
    for (const h of [...this.hosts.values()]) {
      if (this.speed(h.key) === 'slow') continue;
      for (const r of h.running)
        if (r.started <= since) {
          this.slowDown(h);
          break;
        }
    }
  }

  /**
   * The host is slow: its running attempts move to the slow lane (which may then hold more than its share
   * until they end; it takes nothing new meanwhile), the attempts waiting for its slot are handed back to the
   * queue (due at once, uncounted) for the slow lane's claim, and the fast lane's room they held is free.
   */
  private slowDown(h: Host): void {
    this.remember(h.key, true);
    for (const r of h.running) {
      if (r.lane === 'slow') continue;
      this.release(r);
      r.lane = 'slow';
      this.lanes.slow++;
      this.slowAccounts.set(r.attempt.accountId, (this.slowAccounts.get(r.attempt.accountId) ?? 0) + 1);
    }
    const waiting = h.waiting.splice(0);
    for (const w of waiting) this.release(w);
    if (waiting.length > 0)
      releaseClaims(
        this.deps.queue,
        waiting.map((w) => w.attempt),
      ).catch((err: unknown) => {
        if (!isDatabaseUnavailable(err))
          this.deps.log.warn(
            { err },
            'could not hand back attempts of a slow host; their leases will run out',
          );
      });
    this.deps.log.info({ host: h.key }, 'receiver is slow: its deliveries go through the slow lane');
    this.wake();
    this.wakeSlow();
  }

  /** The host slot frees when the receiver is done; the held count when the outcome is recorded. */
  private run(h: Host, held: Held, waited = false): void {
    held.started = performance.now();
    h.running.add(held);
    const sent = (result?: AttemptResult) => {
      h.running.delete(held);
      const before = this.speed(h.key);
      if (result) {
        const slow = result.durationMs >= this.slowAfterMs;
        if (slow && before !== 'slow') this.slowDown(h);
        else if (!slow) {
          this.remember(h.key, false);
          if (before !== 'fast') this.wake(); // out of probation or the slow lane: more room for it now
        }
      }
      const n = h.running.size + h.waiting.length;
      const after = this.speed(h.key);
      const mark =
        after === 'fast'
          ? this.sitOut()
          : after === 'slow'
            ? Math.ceil(this.limits.slowHeldPerHost / 2)
            : this.limits.probePerHost;
      if (n === mark - 1) {
        if (after === 'slow') this.wakeSlow();
        else this.wake();
      } else if (this.waitingForRoom) this.wakeUp?.();
      const next = h.waiting.shift();
      if (next && !this.stopped) this.run(h, next, true);
      else if (h.running.size === 0 && h.waiting.length === 0 && this.hosts.get(h.key) === h)
        this.hosts.delete(h.key);
    };
    const running = this.runner
      .run(held.attempt, sent, waited)
      .catch((err: unknown) => {
        // the lease stays: the sweeper records the attempt as interrupted and schedules the next one. The
        // database lost (a failover) is no fault of ours: the receiver may see that attempt again
        if (isDatabaseUnavailable(err))
          this.deps.log.warn(
            { err, deliveryId: held.attempt.id },
            'delivery attempt not recorded: database unavailable; it will be sent again',
          );
        else
          this.deps.log.error({ err, deliveryId: held.attempt.id }, 'delivery attempt could not be recorded');
      })
      .finally(() => {
        this.release(held);
        this.inFlight.delete(running);
        if (held.lane === 'slow') {
          if (this.full.slow) this.wakeSlow();
        } else if (this.full.fast) this.wake();
      });
    this.inFlight.add(running);
  }
}
