import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { recordFact, saleWebhookBody } from '../support/notifications.js';
import { type Receiver, startReceiver, waitUntil } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { createWebhook, deliveries } from '../support/webhooks.js';

let server: TestServer;
let merchant: TestMerchant;
let receiver: Receiver;

beforeAll(async () => {
  server = await startServer({ env: { WEBHOOK_RETRY_DELAYS_MS: '300,1200', WEBHOOK_TIMEOUT_MS: '1500' } });
  merchant = await createMerchant(server);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

describe('webhook delivery', () => {
  it('POSTs the stored body bytes, signed over <timestamp>.<raw body> with the secret text', async () => {
    const hook = await createWebhook(server, merchant, `${receiver.url}/hook`, ['sale.paid']);
    const body = saleWebhookBody(merchant.accountId);
    const eventId = await recordFact(server, merchant.accountId, 'sale.paid', { body });
    const [got] = await receiver.waitFor(1);
    expect(got!.method).toBe('POST');
    expect(got!.path).toBe('/hook');
    expect(got!.body.toString('utf8')).toBe(JSON.stringify(body));
    const ts = got!.headers['x-service-timestamp'] as string;
    expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(300);
    const expected = createHmac('sha256', hook.secret)
      .update(Buffer.concat([Buffer.from(`${ts}.`), got!.body]))
      .digest('hex');
    expect(got!.headers['x-service-signature']).toBe(`sha256=${expected}`);
    expect(got!.headers['x-service-event-id']).toBe(eventId);
    expect(got!.headers['x-service-event-type']).toBe('sale.paid');
    expect(got!.headers['x-service-redelivery']).toBeUndefined();
    expect(got!.headers['content-type']).toBe('application/json');

    const list = await waitUntil(async () => {
      const l = await deliveries(server, merchant, hook.id);
      return l[0]?.status === 'DELIVERED' ? l : undefined;
    });
    expect(list).toEqual([
      {
        id: expect.any(Number),
        eventId,
        event: 'sale.paid',
        payload: body,
        statusCode: 200,
        attempts: 1,
        error: null,
        status: 'DELIVERED',
        createdAt: expect.any(String),
        lastAttemptAt: expect.any(String),
      },
    ]);
  });
});
