import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVERY_LIMITS } from '../../src/webhooks/workers.js';
import { createMerchant } from '../support/factories.js';
import { recordFact } from '../support/notifications.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
import { createWebhook } from '../support/webhooks.js';

let server: TestServer;
let slow: Receiver;
let fast: Receiver;
const blackHoles: Receiver[] = [];

beforeAll(async () => {
  // attempts to the dead receiver stay in flight for the whole test
  server = await startServer({ env: { WEBHOOK_TIMEOUT_MS: '120000' } });
  slow = await startReceiver('127.0.0.1');
  fast = await startReceiver('127.0.0.2');
  slow.setFallback('hang');
});
afterAll(async () => {
  await Promise.all(blackHoles.map((r) => r.close()));
  await slow?.close();
  await fast?.close();
  await server?.close();
});

describe('isolation between receivers', () => {
  it('a receiver that never answers holds at most its per-host share and delays no other merchant', async () => {
    const a = await createMerchant(server);
    const b = await createMerchant(server);
    await createWebhook(server, a, slow.url, ['sale.paid']);
    const hookB = await createWebhook(server, b, fast.url, ['sale.paid']);
    for (let i = 0; i < 60; i++) await recordFact(server, a.accountId, 'sale.paid');
    await slow.waitFor(DELIVERY_LIMITS.slowPerHost);
    for (let i = 0; i < 60; i++) await recordFact(server, b.accountId, 'sale.paid');
    const { db } = server.runtime.platform;
    await waitUntil(
      async () => {
        const [row] = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM notification_deliveries WHERE webhook_id = $1 AND status = 'DELIVERED'`,
          [hookB.id],
        );
        return row!.n === 60;
      },
      90000,
      () => 'all of merchant B delivered',
    );
    // B was delivered entirely while A's first attempts are still waiting for an answer
    const [finishedA] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM notification_attempts a JOIN notification_deliveries d ON d.id = a.delivery_id
         JOIN webhooks w ON w.id = d.webhook_id WHERE w.account_id = $1`,
      [a.accountId],
    );
    expect(finishedA!.n).toBe(0);
    expect(slow.received.length).toBe(DELIVERY_LIMITS.slowPerHost);
    expect(fast.received).toHaveLength(60);
  });

  it('an account aiming many hosts that never answer holds at most its share and delays no other merchant', async () => {
    const attacker = await createMerchant(server);
    const neighbour = await createMerchant(server);
    // 20 webhooks (the most an account may have) and postbacks to 40 more hosts: per host the attacker stays
    // within its share, but 20 hosts x heldPerHost is more than the process holds
    for (let i = 0; i < 60; i++) {
      const r = await startReceiver('127.0.0.1');
      r.setFallback('hang');
      blackHoles.push(r);
    }
    const hooks = blackHoles.slice(0, 20);
    const postbackHoles = blackHoles.slice(20);
    for (const r of hooks) await createWebhook(server, attacker, r.url, ['sale.pending']);
    // 140 facts: 2,800 webhook deliveries and 140 postbacks, more than the process holds (maxHeld)
    for (let i = 0; i < 140; i++) {
      await recordFact(server, attacker.accountId, 'sale.pending', {
        postback: { url: postbackHoles[i % postbackHoles.length]!.url, body: { n: i } },
      });
    }
    // the attacker's hanging attempts pile up to its share: which hosts fill first depends on the order its
    // deliveries are claimed (its postbacks and webhooks share the account's slow-lane share, 20 hooks × 8 and
    // 140 postbacks being more than it holds), so the wait is on all of them together, not on each hook host
    const hanging = () => blackHoles.reduce((n, r) => n + r.received.length, 0);
    await waitUntil(
      () => hanging() >= DELIVERY_LIMITS.slowHeldPerAccount / 2,
      90_000,
      () => `the black holes got ${hanging()} requests`,
    );

    const neighbourHook = await createWebhook(server, neighbour, fast.url, ['sale.pending']);
    for (let i = 0; i < 30; i++) await recordFact(server, neighbour.accountId, 'sale.pending');
    const { db } = server.runtime.platform;
    await waitUntil(
      async () => {
        const [row] = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM notification_deliveries WHERE webhook_id = $1 AND status = 'DELIVERED'`,
          [neighbourHook.id],
        );
        return row!.n === 30;
      },
      90000,
      () => 'all of the neighbour delivered',
    );
    // delivered while the attacker's backlog is untouched: none of its attempts has ended, and it holds no
    // more than an account's share of the process
    const [attack] = await db.query<{ ended: number; held: number; waiting: number }>(
      `SELECT (SELECT count(*)::int FROM notification_attempts a JOIN notification_deliveries d ON d.id = a.delivery_id
                 JOIN notification_events e ON e.id = d.event_id WHERE e.account_id = $1) AS ended,
              count(*) FILTER (WHERE d.lease_until IS NOT NULL)::int AS held,
              count(*) FILTER (WHERE d.attempts = 0)::int AS waiting
         FROM notification_deliveries d JOIN notification_events e ON e.id = d.event_id
        WHERE e.account_id = $1`,
      [attacker.accountId],
    );
    expect(attack!.ended).toBe(0);
    expect(attack!.waiting).toBeGreaterThan(0);
    expect(attack!.held).toBeLessThanOrEqual(DELIVERY_LIMITS.heldPerAccount);
  }, 240_000);

  it("a merchant's webhook that never answers does not hold back the same merchant's healthy one", async () => {
    const m = await createMerchant(server);
    const dead = await startReceiver('127.0.0.1');
    dead.setFallback('hang');
    blackHoles.push(dead);
    const healthy = await startReceiver('127.0.0.3');
    await createWebhook(server, m, dead.url, ['sale.paid']);
    const hook = await createWebhook(server, m, healthy.url, ['sale.paid']);
    // more facts than the dead host may hold (heldPerHost): it holds its share, the rest of its deliveries wait
    const facts = DELIVERY_LIMITS.heldPerHost + 100;
    for (let i = 0; i < facts; i++) await recordFact(server, m.accountId, 'sale.paid');
    await dead.waitFor(DELIVERY_LIMITS.slowPerHost);
    const { db } = server.runtime.platform;
    const delivered = async (n: number) => {
      const [row] = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM notification_deliveries WHERE webhook_id = $1 AND status = 'DELIVERED'`,
        [hook.id],
      );
      return row!.n === n;
    };
    try {
      await waitUntil(
        () => delivered(facts),
        60000,
        () => 'the first facts delivered to the healthy webhook',
      );
      // the healthy receiver is idle now and the dead one, found slow, holds its share of the slow lane (its
      // attempts in flight and more waiting behind them): new facts still go out
      const [held] = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM notification_deliveries d JOIN webhooks w ON w.id = d.webhook_id
          WHERE w.url = $1 AND d.lease_until IS NOT NULL`,
        [dead.url],
      );
      expect(held!.n).toBeGreaterThan(DELIVERY_LIMITS.slowPerHost);
      expect(held!.n).toBeLessThanOrEqual(DELIVERY_LIMITS.slowHeldPerHost);
      for (let i = 0; i < 30; i++) await recordFact(server, m.accountId, 'sale.paid');
      await waitUntil(
        () => delivered(facts + 30),
        60000,
        () => 'every fact delivered to the healthy webhook',
      );
      // while none of the dead host's attempts has ended
      expect(dead.received.length).toBe(DELIVERY_LIMITS.slowPerHost);
    } finally {
      await healthy.close();
    }
  }, 120_000);
});
