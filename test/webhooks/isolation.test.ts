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

beforeAll(async () => {
  // attempts to the dead receiver stay in flight for the whole test
  server = await startServer({ env: { WEBHOOK_TIMEOUT_MS: '120000' } });
  slow = await startReceiver('127.0.0.1');
  fast = await startReceiver('127.0.0.2');
  slow.setFallback('hang');
});
afterAll(async () => {
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
    await slow.waitFor(DELIVERY_LIMITS.perHost);
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
    expect(slow.received.length).toBe(DELIVERY_LIMITS.perHost);
    expect(fast.received).toHaveLength(60);
  });
});
