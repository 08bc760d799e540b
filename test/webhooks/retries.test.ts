import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seal } from '../../src/platform/crypto/sealed.js';
import { DELIVERY_LIMITS } from '../../src/webhooks/workers.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { recordFact } from '../support/notifications.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
import { createWebhook, type DeliveryEntry, deliveries } from '../support/webhooks.js';

const DELAYS = [300, 1200];
const TIMEOUT_MS = 1500;
let server: TestServer;
const receivers: Receiver[] = [];

beforeAll(async () => {
  server = await startServer({
    env: { WEBHOOK_RETRY_DELAYS_MS: DELAYS.join(','), WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) },
  });
});
afterAll(async () => {
  for (const r of receivers) await r.close();
  await server?.close();
});

/** The webhook's (only) delivery, once it is no longer PENDING. */
function settledDelivery(merchant: TestMerchant, hookId: number): Promise<DeliveryEntry> {
  return waitUntil(
    async () => {
      const [d] = await deliveries(server, merchant, hookId);
      return d && d.status !== 'PENDING' ? d : undefined;
    },
    60000,
    () => 'delivery to settle',
  );
}

/** A merchant with one webhook on a fresh receiver, one sale.paid fact; waits for the delivery to settle. */
async function scenario(setup: (r: Receiver) => void, url?: (r: Receiver) => string) {
  const receiver = await startReceiver();
  receivers.push(receiver);
  setup(receiver);
  const merchant = await createMerchant(server);
  const hook = await createWebhook(server, merchant, url ? url(receiver) : `${receiver.url}/hook`, [
    'sale.paid',
  ]);
  const eventId = await recordFact(server, merchant.accountId, 'sale.paid');
  const settled = await settledDelivery(merchant, hook.id);
  const attempts = await server.runtime.platform.db.query<{
    attempt: number;
    status_code: number | null;
    error: string | null;
    duration_ms: number;
    event_type: string;
  }>(
    'SELECT attempt, status_code, error, duration_ms, event_type FROM notification_attempts WHERE delivery_id = $1 ORDER BY attempt',
    [settled.id],
  );
  return { receiver, eventId, settled, attempts };
}

function expectSettled(d: DeliveryEntry, status: string, attempts: number, statusCode: number | null) {
  expect(d.status).toBe(status);
  expect(d.attempts).toBe(attempts);
  expect(d.statusCode).toBe(statusCode);
}

describe('retry rules', () => {
  it('retries a 500 up to 3 attempts in all, waiting the configured, growing delays, then FAILED', async () => {
    const { receiver, eventId, settled, attempts } = await scenario((r) => r.setFallback({ status: 500 }));
    expectSettled(settled, 'FAILED', 3, 500);
    expect(settled.error).toBe('HTTP 500');
    expect(receiver.received).toHaveLength(3);
    const [a, b, c] = receiver.received;
    expect(b!.at - a!.at).toBeGreaterThanOrEqual(DELAYS[0]!);
    expect(c!.at - b!.at).toBeGreaterThanOrEqual(DELAYS[1]!);
    for (const r of receiver.received) {
      expect(r.headers['x-service-event-id']).toBe(eventId);
      expect(r.body.equals(a!.body)).toBe(true);
    }
    expect(attempts.map((x) => [x.attempt, x.status_code, x.event_type])).toEqual([
      [1, 500, 'sale.paid'],
      [2, 500, 'sale.paid'],
      [3, 500, 'sale.paid'],
    ]);
  });

  it('does not retry a 4xx (410 once → FAILED)', async () => {
    const { receiver, settled, attempts } = await scenario((r) => r.setFallback({ status: 410 }));
    expectSettled(settled, 'FAILED', 1, 410);
    expect(receiver.received).toHaveLength(1);
    expect(attempts).toHaveLength(1);
  });

  it('aborts an attempt that gets no response within the timeout and retries it', async () => {
    const { receiver, settled, attempts } = await scenario((r) => r.queue('hang'));
    expectSettled(settled, 'DELIVERED', 2, 200);
    expect(receiver.received).toHaveLength(2);
    expect(attempts[0]!.error).toBe(`no response within ${TIMEOUT_MS} ms`);
    expect(attempts[0]!.status_code).toBeNull();
    expect(attempts[0]!.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
  });

  it('retries when the receiver drops the connection', async () => {
    const { settled, attempts } = await scenario((r) => r.queue('close'));
    expectSettled(settled, 'DELIVERED', 2, 200);
    expect(attempts[0]!.error).toMatch(/socket|closed|ECONNRESET/i);
  });

  it('retries a refused connection, and marks the delivery FAILED after the third attempt', async () => {
    const closed = await startReceiver();
    const deadUrl = `${closed.url}/gone`;
    await closed.close();
    const { settled, attempts } = await scenario(
      () => undefined,
      () => deadUrl,
    );
    expectSettled(settled, 'FAILED', 3, null);
    expect(attempts).toHaveLength(3);
    for (const a of attempts) expect(a.error).toMatch(/ECONNREFUSED/);
  });

  it('counts an attempt that could not be prepared (undecryptable secret) as a retry, sending nothing', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const merchant = await createMerchant(server);
    const hook = await createWebhook(server, merchant, `${receiver.url}/hook`, ['sale.paid']);
    const { db } = server.runtime.platform;
    // sealed under another key than this process's: the log names the key and the webhook
    server.logs.expect(
      "notification attempt could not be prepared: this process's SECRETS_KEY does not open the webhook's stored secret",
    );
    await db.query('UPDATE webhooks SET secret_enc = $2 WHERE id = $1', [
      hook.id,
      seal(randomBytes(32), 'whsec_sealed-with-another-key'),
    ]);
    await recordFact(server, merchant.accountId, 'sale.paid');
    const settled = await settledDelivery(merchant, hook.id);
    expectSettled(settled, 'FAILED', 3, null);
    expect(settled.error).toBe('not sent: the attempt could not be prepared');
    expect(receiver.received).toHaveLength(0);
  });

  it('sends nothing more once the webhook is deleted, not even attempts already claimed and waiting for a slot', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    receiver.setFallback('hang');
    const merchant = await createMerchant(server);
    const hook = await createWebhook(server, merchant, `${receiver.url}/hook`, ['sale.paid']);
    const inFlight = DELIVERY_LIMITS.slowPerHost;
    for (let i = 0; i < inFlight + 4; i++) await recordFact(server, merchant.accountId, 'sale.paid');
    // a hanging host's limit in flight (the slow lane's), 4 claimed and waiting in the process. Every fact must be fanned
    // out before the delete: a fact fanned out after it makes no delivery at all (under load the first
    // fan-out can take only some of the 12 facts, and their 8 attempts arrive before the rest are fanned out)
    await receiver.waitFor(inFlight);
    const { db } = server.runtime.platform;
    await waitUntil(
      async () => {
        const [r] = await db.query<{ claimed: number }>(
          `SELECT count(*)::int AS claimed FROM notification_deliveries
            WHERE webhook_id = $1 AND status = 'PENDING' AND ticket IS NULL AND attempts = 1`,
          [hook.id],
        );
        return r!.claimed === inFlight + 4;
      },
      30000,
      () => 'every delivery to be claimed',
    );
    // on a slow machine an attempt in flight may reach its timeout (TIMEOUT_MS) before the delete, and its slot
    // lets a waiting one go: that request is the receiver's before the delete, and no later one may follow it
    const beforeDelete = receiver.received.length;
    expect(beforeDelete).toBeLessThan(inFlight + 4);
    const del = await call('DELETE', `${server.url}/api/webhook/${hook.id}`, { headers: merchant.panel });
    expect(del.status).toBe(204);
    const deletedAt = Date.now();
    const rows = await waitUntil(
      async () => {
        const r = await db.query<{ status: string; error: string }>(
          'SELECT status, error FROM notification_deliveries WHERE webhook_id = $1',
          [hook.id],
        );
        return r.length === inFlight + 4 && r.every((x) => x.status !== 'PENDING') ? r : undefined;
      },
      60000,
      () => 'deliveries to settle',
    );
    expect(rows.every((r) => r.status === 'FAILED')).toBe(true);
    await new Promise((r) => setTimeout(r, DELAYS[1]! + TIMEOUT_MS));
    expect(receiver.received.filter((r) => r.at > deletedAt)).toEqual([]);
    expect(receiver.received.length).toBeGreaterThanOrEqual(inFlight);
    expect(receiver.received.length).toBeLessThan(inFlight + 4);
  });

  it('does not retry a redirect (3xx is not followed)', async () => {
    const { receiver, settled } = await scenario((r) => r.setFallback({ status: 302 }));
    expectSettled(settled, 'FAILED', 1, 302);
    expect(receiver.received).toHaveLength(1);
  });
});
