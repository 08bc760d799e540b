import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVERY_LIMITS } from '../../src/webhooks/workers.js';
import { moveTo, sandboxSale } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { recordFact, saleWebhookBody } from '../support/notifications.js';
import { type BlackHole, type Receiver, startBlackHole, startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
import { createWebhook } from '../support/webhooks.js';

/**
 * The attack of the fairness finding, scaled to a test's time: ATTACKERS accounts, each with the most webhooks
 * an account may have, every one aimed at its own port that accepts the connection and never answers, and
 * SALES sales (a sale.pending and a sale.paid fact each) whose postbacks go to as many more such ports. The
 * response timeout is 3 s and the retries come 1 s and 2 s later, so every hanging attempt ends, is retried
 * and hangs again while a healthy merchant's sales are paid.
 */
const TIMEOUT_MS = 3000;
const ATTACKERS = 15;
const HOOKS = 20;
const SALES = 300;
const HEALTHY_SALES = 60;
const UNLOADED_SALES = 10;

let server: TestServer;
let healthyReceiver: Receiver;
const holes: BlackHole[] = [];

beforeAll(async () => {
  server = await startServer({
    env: { WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOK_RETRY_DELAYS_MS: '1000,2000' },
  });
  healthyReceiver = await startReceiver('127.0.0.2');
});
afterAll(async () => {
  await Promise.all(holes.map((h) => h.close()));
  await healthyReceiver?.close();
  await server?.close();
});

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** Pays `n` sandbox sales of the merchant, one every `gapMs`; returns each sale.paid fact's event id. */
async function paySales(merchant: TestMerchant, n: number, gapMs: number): Promise<number> {
  for (let i = 0; i < n; i++) {
    const sale = await sandboxSale(server, merchant);
    const paid = await moveTo(server, merchant, sale.id, 'PAGO');
    expect(paid.status, paid.text).toBe(200);
    if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
  }
  return n;
}

/** Fact (its transaction's time) → arrival at the receiver, per sale.paid delivery received, sorted. */
async function lateness(merchant: TestMerchant, from: number): Promise<number[]> {
  const arrivals = healthyReceiver.received.slice(from);
  const ids = arrivals.map((r) => String(r.headers['webhook-id']));
  const facts = await server.runtime.platform.db.query<{ id: string; at: number }>(
    `SELECT id, (extract(epoch FROM created_at) * 1000)::float8 AS at FROM notification_events
      WHERE account_id = $1 AND id = ANY ($2::uuid[])`,
    [merchant.accountId, ids],
  );
  const factAt = new Map(facts.map((f) => [f.id, Number(f.at)]));
  expect(factAt.size).toBe(ids.length);
  return arrivals.map((r) => r.at - factAt.get(String(r.headers['webhook-id']))!).sort((a, b) => a - b);
}

describe('fair delivery across accounts', () => {
  it("keeps a healthy merchant's deliveries on time while many accounts' endpoints hang", async () => {
    const healthy = await createMerchant(server);
    await createWebhook(server, healthy, `${healthyReceiver.url}/hook`, ['sale.paid']);

    // unloaded: the same merchant's lateness before the attack
    await paySales(healthy, UNLOADED_SALES, 50);
    await healthyReceiver.waitFor(UNLOADED_SALES);
    const unloaded = await lateness(healthy, 0);

    // the attackers: 15 accounts × 20 hanging webhooks, and a hanging postback port per sale
    const attackers: TestMerchant[] = [];
    for (let a = 0; a < ATTACKERS; a++) {
      const m = await createMerchant(server);
      attackers.push(m);
      for (let h = 0; h < HOOKS; h++) {
        const hole = await startBlackHole('127.0.0.1');
        holes.push(hole);
        await createWebhook(server, m, `${hole.url}/hook`, ['*']);
      }
    }
    const postbackHoles: BlackHole[] = [];
    for (let i = 0; i < SALES; i++) postbackHoles.push(await startBlackHole('127.0.0.1'));
    holes.push(...postbackHoles);
    const connections = () => holes.reduce((n, h) => n + h.connections(), 0);

    const attackStart = Date.now();
    for (let i = 0; i < SALES; i++) {
      const m = attackers[i % ATTACKERS]!;
      const body = saleWebhookBody(m.accountId, 'PENDENTE');
      await recordFact(server, m.accountId, 'sale.pending', { body });
      await recordFact(server, m.accountId, 'sale.paid', {
        body: { ...body, status: 'PAGO' },
        postback: { url: `${postbackHoles[i]!.url}/pb`, body: { id: body.id, status: 'PAGO' } },
      });
    }
    const attackMs = Date.now() - attackStart;
    // the attack is under way: every hanging webhook host has been tried
    await waitUntil(
      () => connections() >= ATTACKERS * HOOKS,
      30000,
      () => `hanging hosts tried: ${connections()} connections`,
    );
    const connectionsBefore = connections();

    // the healthy merchant's sales, paid while the attack runs (through several rounds of timeouts and retries)
    const from = healthyReceiver.received.length;
    await paySales(healthy, HEALTHY_SALES, 100);
    await waitUntil(
      () => healthyReceiver.received.length >= from + HEALTHY_SALES,
      30000,
      () => `healthy deliveries: ${healthyReceiver.received.length - from} of ${HEALTHY_SALES}`,
    );
    const underAttack = await lateness(healthy, from);

    const [attack] = await server.runtime.platform.db.query<{ deliveries: number; attempts: number }>(
      `SELECT count(*)::int AS deliveries,
              (SELECT count(*)::int FROM notification_attempts a JOIN notification_deliveries x ON x.id = a.delivery_id
                WHERE x.account_id = ANY ($1::bigint[])) AS attempts
         FROM notification_deliveries WHERE account_id = ANY ($1::bigint[])`,
      [attackers.map((m) => m.accountId)],
    );
    const fmt = (l: number[]) =>
      `p50 ${percentile(l, 50).toFixed(0)} ms, p99 ${percentile(l, 99).toFixed(0)} ms, max ${l.at(-1)!.toFixed(0)} ms`;
    console.log(
      `fairness: ${ATTACKERS} accounts × ${HOOKS} hanging webhooks + ${SALES} hanging postbacks ` +
        `(${SALES * 2} facts in ${attackMs} ms, ${attack!.deliveries} deliveries, ${attack!.attempts} attempts ended); ` +
        `healthy sale.paid fact → arrival: unloaded ${fmt(unloaded)}; under attack ${fmt(underAttack)} (n=${underAttack.length})`,
    );

    // every healthy delivery arrived, each once, and none waited behind a hanging attempt: one that had would
    // be at least a response timeout late (the machine's speed sets the rest, which the log line shows)
    expect(underAttack).toHaveLength(HEALTHY_SALES);
    expect(percentile(underAttack, 99)).toBeLessThan(TIMEOUT_MS);
    // the hanging hosts are still served, from the slow lane: their attempts went on during the healthy phase
    expect(connections()).toBeGreaterThan(connectionsBefore);
    expect(attack!.attempts).toBeGreaterThan(0);
    // and the slow lane is bounded: attempts held (leased) for the attackers stay within it and what was in
    // flight when their hosts were found slow
    const [held] = await server.runtime.platform.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM notification_deliveries WHERE account_id = ANY ($1::bigint[]) AND lease_until IS NOT NULL`,
      [attackers.map((m) => m.accountId)],
    );
    expect(held!.n).toBeLessThanOrEqual(
      DELIVERY_LIMITS.slowHeld + DELIVERY_LIMITS.probeHeld + ATTACKERS * HOOKS + SALES,
    );
  }, 180_000);
});
