import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { recordFact, salePostbackBody, saleWebhookBody } from '../support/notifications.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
import { createWebhook } from '../support/webhooks.js';

const POSTBACK_SECRET = 'postback-secret-example';
let server: TestServer;
let merchant: TestMerchant;
const receivers: Receiver[] = [];

beforeAll(async () => {
  server = await startServer({
    env: { POSTBACK_SECRET, WEBHOOK_RETRY_DELAYS_MS: '200,400', WEBHOOK_TIMEOUT_MS: '1000' },
  });
  merchant = await createMerchant(server);
});
afterAll(async () => {
  for (const r of receivers) await r.close();
  await server?.close();
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

async function postbackRow(eventId: string) {
  return waitUntil(async () => {
    const [row] = await server.runtime.platform.db.query<{
      id: number;
      status: string;
      attempts: number;
      status_code: number | null;
      webhook_id: number | null;
    }>(
      `SELECT id, status, attempts, status_code, webhook_id FROM notification_deliveries WHERE event_id = $1 AND kind = 'postback'`,
      [eventId],
    );
    return row && row.status !== 'PENDING' ? row : undefined;
  });
}

describe('per-sale postback', () => {
  it('POSTs the postback body with X-Signature = hex HMAC-SHA256(postback secret, exact body)', async () => {
    const r = await receiver();
    const webhookBody = saleWebhookBody(merchant.accountId);
    const body = salePostbackBody(webhookBody);
    const eventId = await recordFact(server, merchant.accountId, 'sale.paid', {
      body: webhookBody,
      postback: { url: `${r.url}/pb?order=1`, body },
    });
    const [got] = await r.waitFor(1);
    expect(got!.path).toBe('/pb?order=1');
    expect(got!.body.toString('utf8')).toBe(JSON.stringify({ ...body, eventType: 'sale.paid' }));
    const expected = createHmac('sha256', POSTBACK_SECRET).update(got!.body).digest('hex');
    expect(got!.headers['x-signature']).toBe(expected);
    expect(got!.headers['x-service-signature']).toBeUndefined();
    const row = await postbackRow(eventId);
    expect(row).toMatchObject({ status: 'DELIVERED', attempts: 1, status_code: 200, webhook_id: null });
  });

  it('goes alongside the permanent webhook, each in its own format', async () => {
    const pb = await receiver();
    const wh = await receiver();
    const m = await createMerchant(server);
    await createWebhook(server, m, wh.url, ['sale.paid']);
    const webhookBody = saleWebhookBody(m.accountId);
    await recordFact(server, m.accountId, 'sale.paid', {
      body: webhookBody,
      postback: { url: pb.url, body: salePostbackBody(webhookBody) },
    });
    const [p] = await pb.waitFor(1);
    const [w] = await wh.waitFor(1);
    expect(JSON.parse(p!.body.toString())).toHaveProperty('externalTransactionId');
    expect(JSON.parse(p!.body.toString())).not.toHaveProperty('fee');
    expect(JSON.parse(w!.body.toString())).toMatchObject({ type: 'TRANSACTION', fee: 450 });
  });

  it('follows the webhook retry rules: 5xx retried up to 3 attempts, 4xx not retried', async () => {
    const flaky = await receiver();
    flaky.queue({ status: 503 }, 'close');
    const webhookBody = saleWebhookBody(merchant.accountId);
    const body = salePostbackBody(webhookBody);
    const eventId = await recordFact(server, merchant.accountId, 'sale.paid', {
      body: webhookBody,
      postback: { url: flaky.url, body },
    });
    expect(await postbackRow(eventId)).toMatchObject({ status: 'DELIVERED', attempts: 3, status_code: 200 });
    expect(flaky.received).toHaveLength(3);
    for (const g of flaky.received) {
      expect(g.body.toString()).toBe(JSON.stringify({ ...body, eventType: 'sale.paid' }));
    }

    const gone = await receiver();
    gone.setFallback({ status: 404 });
    const wb2 = saleWebhookBody(merchant.accountId);
    const id2 = await recordFact(server, merchant.accountId, 'sale.refunded', {
      body: wb2,
      postback: { url: gone.url, body: salePostbackBody(wb2) },
    });
    expect(await postbackRow(id2)).toMatchObject({ status: 'FAILED', attempts: 1, status_code: 404 });
    const attempts = await server.runtime.platform.db.query<{
      attempt: number;
      status_code: number;
      event_type: string;
    }>(
      `SELECT a.attempt, a.status_code, a.event_type FROM notification_attempts a
         JOIN notification_deliveries d ON d.id = a.delivery_id WHERE d.event_id = $1`,
      [id2],
    );
    expect(attempts).toEqual([{ attempt: 1, status_code: 404, event_type: 'sale.refunded' }]);
  });
});
