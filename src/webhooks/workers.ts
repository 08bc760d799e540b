import type { Platform } from '../platform/context.js';
import { startAutoDisable } from './auto-disable.js';
import { QUEUE_SETTINGS } from './deliveries.data.js';
import { DeliveryAttempts } from './delivery-attempts.js';
import { DeliveryDispatcher, type DispatchLimits } from './dispatcher.js';
import { NotificationClient } from './http-client.js';
import { startSweeper } from './sweeper.js';

/** Concurrency of the delivery engine (see docs/decisions.md, Notifications). */
export const DELIVERY_LIMITS = {
  /** Attempts held per process (in flight, claimed and waiting for their host, or being recorded). */
  maxHeld: 2048,
  /**
   * Attempts in flight per target host (host:port) per process: at a saturating fact rate a host's backlog at
   * the start drains only with room above that rate (docs/performance.md).
   */
  perHost: 32,
  /** Attempts of one target host held at once per process (running + claimed and waiting). */
  heldPerHost: 256,
  /** Attempts of one account held at once per process in the fast lane, over all its hosts. */
  heldPerAccount: 512,
  /** The slow lane's share of maxHeld (a quarter): hosts found slow are held from it, never from the rest. */
  slowHeld: 512,
  /** One account's attempts in the slow lane, half of it (it sits out claims at half of that). */
  slowHeldPerAccount: 256,
  /** A slow host's attempts in flight: a hanging receiver holds no more of its connections than this. */
  slowPerHost: 8,
  /** One slow host's attempts in the slow lane: slowPerHost in flight, the rest waiting (sits out at half). */
  slowHeldPerHost: 32,
  /** Most attempts per slow-lane claim (spreads a refill after a wave of timeouts). */
  slowClaimBatch: 256,
  /** Hosts not heard from yet: attempts each, and in all (from the fast lane). */
  probePerHost: 1,
  probeHeld: 256,
  /** An attempt this slow (at most half of WEBHOOK_TIMEOUT_MS) sends its host to the slow lane. */
  slowAfterMs: 2000,
  /** How long a host's speed is remembered after the attempt that showed it. */
  speedMemoryMs: 10 * 60_000,
  connectionsPerOrigin: 32,
  claimBatch: 512,
  fanOutBatch: 500,
  minFanOutRoom: 32,
  fanOutIdleMs: 50,
  factsWakeMs: 5,
  claimIdleMs: 250,
  settleMs: 2,
} as const;

/** Starts the delivery dispatcher (fan-out and claims) and the sweeper; returns their stop function. */
export async function startNotificationWorkers(
  platform: Platform,
  limits: DispatchLimits = DELIVERY_LIMITS,
): Promise<() => Promise<void>> {
  const { db, config, log } = platform;
  // fan-out and claims, outcome writes and the sweeper's backstop (one of each at a time) run on the queue's
  // own connections
  const queue = db.withSettings(QUEUE_SETTINGS, 3);
  const client = new NotificationClient({
    allowPrivate: config.webhookAllowPrivate,
    timeoutMs: config.webhookTimeoutMs,
    connectionsPerOrigin: DELIVERY_LIMITS.connectionsPerOrigin,
  });
  let dispatcher: DeliveryDispatcher | undefined;
  const wake = (delayMs: number) => {
    if (delayMs <= 0) dispatcher?.wake();
    else setTimeout(() => dispatcher?.wake(), delayMs + 5).unref();
  };
  const runner = new DeliveryAttempts({ db, queue, config, client, wake, log });
  dispatcher = new DeliveryDispatcher({ queue, log, timeoutMs: config.webhookTimeoutMs }, runner, limits);

  dispatcher.start();
  const unsubscribe = platform.outbox.subscribe(() => dispatcher?.factsCommitted());
  const stopSweeper = startSweeper(db, queue, log, () => dispatcher?.wake());
  const stopAutoDisable = startAutoDisable(db, platform.queue, config, log);
  return async () => {
    unsubscribe();
    stopSweeper();
    stopAutoDisable();
    await dispatcher?.stop(); // waits for attempts in flight and their outcomes
    await client.close();
  };
}
