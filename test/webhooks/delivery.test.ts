import { createHmac } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_NAMES } from '../../src/webhooks/events.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { recordFact, saleWebhookBody, withdrawalBody } from '../support/notifications.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
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
    // the body as recorded, stating its event last
    expect(got!.body.toString('utf8')).toBe(JSON.stringify({ ...body, eventType: 'sale.paid' }));
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
        payload: { ...body, eventType: 'sale.paid' },
        statusCode: 200,
        attempts: 1,
        error: null,
        status: 'DELIVERED',
        createdAt: expect.any(String),
        lastAttemptAt: expect.any(String),
      },
    ]);
  });

  it('resends the same bytes and event id with a fresh signature and X-Service-Redelivery: true', async () => {
    const r = await startReceiver();
    try {
      const m = await createMerchant(server);
      const hook = await createWebhook(server, m, r.url, ['sale.refunded']);
      const eventId = await recordFact(server, m.accountId, 'sale.refunded');
      const [first] = await r.waitFor(1);
      const [entry] = await waitUntil(async () => {
        const l = await deliveries(server, m, hook.id);
        return l[0]?.status === 'DELIVERED' ? l : undefined;
      });
      // let the clock pass a second, so the new timestamp (and so the signature) must differ
      await new Promise((res) => setTimeout(res, 1100));
      const res = await call('POST', `${server.url}/api/webhook/deliveries/${entry!.id}/resend`, {
        headers: m.panel,
      });
      expect(res.status).toBe(202);
      const [, second] = await r.waitFor(2);
      expect(second!.body.equals(first!.body)).toBe(true);
      expect(second!.headers['x-service-event-id']).toBe(eventId);
      expect(second!.headers['x-service-redelivery']).toBe('true');
      expect(second!.headers['x-service-timestamp']).not.toBe(first!.headers['x-service-timestamp']);
      expect(second!.headers['x-service-signature']).not.toBe(first!.headers['x-service-signature']);
      const ts = second!.headers['x-service-timestamp'] as string;
      const expected = createHmac('sha256', hook.secret).update(`${ts}.`).update(second!.body).digest('hex');
      expect(second!.headers['x-service-signature']).toBe(`sha256=${expected}`);
      const after = await waitUntil(async () => {
        const [d] = await deliveries(server, m, hook.id);
        return d?.status === 'DELIVERED' && d.attempts === 2 ? d : undefined;
      });
      expect(after.eventId).toBe(eventId);
      expect(r.received).toHaveLength(2);
    } finally {
      await r.close();
    }
  });

  it('a resend while a retry is still owed takes its place: failed, the schedule goes on, 3 attempts in all', async () => {
    // a long wait before the 2nd attempt (the resend comes first), a short one before the 3rd
    const own = await startServer({
      env: { WEBHOOK_RETRY_DELAYS_MS: '60000,300', WEBHOOK_TIMEOUT_MS: '1500' },
    });
    const r = await startReceiver();
    try {
      r.setFallback({ status: 503 });
      const m = await createMerchant(own);
      const hook = await createWebhook(own, m, r.url, ['sale.paid']);
      await recordFact(own, m.accountId, 'sale.paid');
      await r.waitFor(1);
      const [pending] = await waitUntil(async () => {
        const l = await deliveries(own, m, hook.id);
        return l[0]?.status === 'PENDING' && l[0].attempts === 1 ? l : undefined;
      });
      const res = await call('POST', `${own.url}/api/webhook/deliveries/${pending!.id}/resend`, {
        headers: m.panel,
      });
      expect(res.status).toBe(202);
      const got = await r.waitFor(3);
      expect(got.map((g) => g.headers['x-service-redelivery'])).toEqual([undefined, 'true', undefined]);
      const ended = await waitUntil(async () => {
        const [d] = await deliveries(own, m, hook.id);
        return d?.status === 'FAILED' ? d : undefined;
      });
      expect(ended.attempts).toBe(3);
      await new Promise((res) => setTimeout(res, 500));
      expect(r.received).toHaveLength(3);
    } finally {
      await r.close();
      await own.close();
    }
  });

  it('gives each fact its own event id (pending and paid of one sale differ)', async () => {
    const r = await startReceiver();
    try {
      const m = await createMerchant(server);
      await createWebhook(server, m, r.url, ['*']);
      const body = saleWebhookBody(m.accountId, 'PENDENTE');
      const a = await recordFact(server, m.accountId, 'sale.pending', { body });
      const b = await recordFact(server, m.accountId, 'sale.paid', { body: { ...body, status: 'PAGO' } });
      expect(a).not.toBe(b);
      // UUIDv7: version 7, and a later fact's id sorts after an earlier one's (time-ordered keys)
      for (const id of [a, b])
        expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(a < b).toBe(true);
      const got = await r.waitFor(2);
      expect(new Set(got.map((g) => g.headers['x-service-event-id']))).toEqual(new Set([a, b]));
    } finally {
      await r.close();
    }
  });

  it('"*" selects every sale and withdrawal event, cart events only when named', async () => {
    const all = await startReceiver();
    const cart = await startReceiver();
    const both = await startReceiver();
    try {
      const m = await createMerchant(server);
      await createWebhook(server, m, all.url, ['*']);
      await createWebhook(server, m, cart.url, ['cart.abandoned']);
      await createWebhook(server, m, both.url, [...EVENT_NAMES]); // all + carts: every name, listed
      await recordFact(server, m.accountId, 'cart.abandoned');
      await recordFact(server, m.accountId, 'sale.pending');
      await recordFact(server, m.accountId, 'withdrawal.completed');
      await recordFact(server, m.accountId, 'cart.recovered');
      await both.waitFor(4);
      await cart.waitFor(1);
      await all.waitFor(2);
      // every fact is fanned out in one transaction, so once 'both' has all four, nothing is still on its way
      await waitUntil(async () => {
        const [row] = await server.runtime.platform.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM notification_deliveries d JOIN webhooks w ON w.id = d.webhook_id
            WHERE w.account_id = $1 AND d.status = 'PENDING'`,
          [m.accountId],
        );
        return row!.n === 0;
      });
      const types = (rcv: Receiver) => rcv.received.map((x) => x.headers['x-service-event-type']).sort();
      expect(types(all)).toEqual(['sale.pending', 'withdrawal.completed']);
      expect(types(cart)).toEqual(['cart.abandoned']);
      expect(types(both)).toEqual([
        'cart.abandoned',
        'cart.recovered',
        'sale.pending',
        'withdrawal.completed',
      ]);
    } finally {
      await all.close();
      await cart.close();
      await both.close();
    }
  });

  it('sends withdrawal facts, signed, to webhooks that selected withdrawal events only', async () => {
    const w = await startReceiver();
    const s = await startReceiver();
    try {
      const m = await createMerchant(server);
      const hook = await createWebhook(server, m, w.url, ['withdrawal.completed', 'withdrawal.rejected']);
      await createWebhook(server, m, s.url, ['sale.paid']);
      const body = withdrawalBody(m.accountId, 'REJECTED');
      const eventId = await recordFact(server, m.accountId, 'withdrawal.rejected', { body });
      await recordFact(server, m.accountId, 'sale.paid');
      const [got] = await w.waitFor(1);
      await s.waitFor(1);
      expect(JSON.parse(got!.body.toString())).toEqual({ ...body, eventType: 'withdrawal.rejected' });
      expect(got!.headers['x-service-event-type']).toBe('withdrawal.rejected');
      expect(got!.headers['x-service-event-id']).toBe(eventId);
      const ts = got!.headers['x-service-timestamp'] as string;
      const expected = createHmac('sha256', hook.secret).update(`${ts}.`).update(got!.body).digest('hex');
      expect(got!.headers['x-service-signature']).toBe(`sha256=${expected}`);
      expect(s.received.map((x) => x.headers['x-service-event-type'])).toEqual(['sale.paid']);
    } finally {
      await w.close();
      await s.close();
    }
  });

  it('sends nothing to a deleted webhook', async () => {
    const gone = await startReceiver();
    const live = await startReceiver();
    try {
      const m = await createMerchant(server);
      const deleted = await createWebhook(server, m, gone.url, ['*']);
      await createWebhook(server, m, live.url, ['*']);
      const del = await call('DELETE', `${server.url}/api/webhook/${deleted.id}`, { headers: m.panel });
      expect(del.status).toBe(204);
      await recordFact(server, m.accountId, 'sale.paid');
      await live.waitFor(1);
      const rows = await server.runtime.platform.db.query(
        'SELECT 1 FROM notification_deliveries WHERE webhook_id = $1',
        [deleted.id],
      );
      expect(rows).toHaveLength(0);
      expect(gone.received).toHaveLength(0);
    } finally {
      await gone.close();
      await live.close();
    }
  });

  it('settles a deleted webhook’s queued retries at once, as FAILED, without sending them', async () => {
    const failing = await startReceiver();
    failing.setFallback({ status: 500 });
    try {
      const m = await createMerchant(server);
      const hook = await createWebhook(server, m, failing.url, ['*']);
      await recordFact(server, m.accountId, 'sale.paid');
      await failing.waitFor(1);
      const { db } = server.runtime.platform;
      // hold the retry back so the delete surely finds it queued
      await waitUntil(async () => {
        const rows = await db.query(
          `UPDATE notification_deliveries SET next_attempt_at = now() + interval '1 hour'
            WHERE webhook_id = $1 AND status = 'PENDING' AND ticket IS NOT NULL AND attempts = 1 RETURNING id`,
          [hook.id],
        );
        return rows.length > 0 || undefined;
      });
      const del = await call('DELETE', `${server.url}/api/webhook/${hook.id}`, { headers: m.panel });
      expect(del.status).toBe(204);
      const [row] = await db.query<{ status: string; attempts: number; error: string }>(
        'SELECT status, attempts, error FROM notification_deliveries WHERE webhook_id = $1',
        [hook.id],
      );
      expect(row).toEqual({
        status: 'FAILED',
        attempts: 1,
        error: 'webhook deleted before delivery; nothing sent',
      });
      expect(failing.received).toHaveLength(1);
    } finally {
      await failing.close();
    }
  });

  it('sends a queued retry to the webhook’s new URL, counted against the new host', async () => {
    const before = await startReceiver();
    const after = await startReceiver();
    before.setFallback({ status: 500 });
    try {
      const m = await createMerchant(server);
      const hook = await createWebhook(server, m, before.url, ['*']);
      await recordFact(server, m.accountId, 'sale.paid');
      await before.waitFor(1);
      const { db } = server.runtime.platform;
      await waitUntil(async () => {
        const rows = await db.query(
          `UPDATE notification_deliveries SET next_attempt_at = now() + interval '1 hour'
            WHERE webhook_id = $1 AND status = 'PENDING' AND ticket IS NOT NULL AND attempts = 1 RETURNING id`,
          [hook.id],
        );
        return rows.length > 0 || undefined;
      });
      const put = await call('PUT', `${server.url}/api/webhook/${hook.id}`, {
        headers: m.panel,
        body: { webhookUrl: after.url },
      });
      expect(put.status).toBe(200);
      const [row] = await db.query<{ target_host: string }>(
        'SELECT target_host FROM notification_deliveries WHERE webhook_id = $1',
        [hook.id],
      );
      expect(row!.target_host).toBe(`127.0.0.1:${after.port}`);
      await db.query('UPDATE notification_deliveries SET next_attempt_at = now() WHERE webhook_id = $1', [
        hook.id,
      ]);
      await after.waitFor(1);
      expect(before.received).toHaveLength(1);
    } finally {
      await before.close();
      await after.close();
    }
  });

  it('carries Standard Webhooks headers that the standardwebhooks library verifies', async () => {
    const r = await startReceiver();
    try {
      const m = await createMerchant(server);
      const hook = await createWebhook(server, m, r.url, ['sale.chargeback']);
      const eventId = await recordFact(server, m.accountId, 'sale.chargeback');
      const [got] = await r.waitFor(1);
      expect(got!.headers['webhook-id']).toBe(eventId);
      expect(got!.headers['webhook-timestamp']).toBe(got!.headers['x-service-timestamp']);
      const verified = new StandardWebhook(hook.secret).verify(got!.body.toString('utf8'), {
        'webhook-id': got!.headers['webhook-id'] as string,
        'webhook-timestamp': got!.headers['webhook-timestamp'] as string,
        'webhook-signature': got!.headers['webhook-signature'] as string,
      });
      expect(verified).toEqual(JSON.parse(got!.body.toString('utf8')));
      expect(() =>
        new StandardWebhook(hook.secret).verify(`${got!.body.toString('utf8')} `, {
          'webhook-id': got!.headers['webhook-id'] as string,
          'webhook-timestamp': got!.headers['webhook-timestamp'] as string,
          'webhook-signature': got!.headers['webhook-signature'] as string,
        }),
      ).toThrow();
    } finally {
      await r.close();
    }
  });
});
