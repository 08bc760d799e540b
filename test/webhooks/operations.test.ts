import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/webhooks/verify.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { Mailbox } from '../support/mailbox.js';
import { recordFact } from '../support/notifications.js';
import { type Received, type Receiver, startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
import { createWebhook, deliveries } from '../support/webhooks.js';

let server: TestServer;
let mailbox: Mailbox;
const receivers: Receiver[] = [];

beforeAll(async () => {
  mailbox = await Mailbox.start();
  server = await startServer({
    env: {
      SMTP_URL: mailbox.url,
      WEBHOOK_RETRY_DELAYS_MS: '100,100',
      WEBHOOK_DISABLE_AFTER_FAILURES: '3',
      WEBHOOK_DISABLE_AFTER_HOURS: '0',
      WEBHOOK_HEALTH_CHECK_SECONDS: '1',
    },
  });
});
afterAll(async () => {
  for (const r of receivers) await r.close();
  await server?.close();
  await mailbox?.stop();
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

const headersOf = (r: Received) => r.headers as Record<string, string>;

function standardVerifies(secret: string, r: Received): boolean {
  try {
    new StandardWebhook(secret.slice(6)).verify(r.body.toString('utf8'), {
      'webhook-id': headersOf(r)['webhook-id']!,
      'webhook-timestamp': headersOf(r)['webhook-timestamp']!,
      'webhook-signature': headersOf(r)['webhook-signature']!,
    });
    return true;
  } catch {
    return false;
  }
}

const rotate = (m: TestMerchant, id: number, body: object) =>
  call<{ secret: string }>('POST', `${server.url}/api/webhook/${id}/rotate-secret`, {
    headers: m.panel,
    body,
  });

describe('POST /api/webhook/{id}/rotate-secret', () => {
  it('during the overlap the old secret keeps X-Service-Signature, the new one signs -Next, webhook-signature carries both', async () => {
    const m = await createMerchant(server);
    const r = await receiver();
    const hook = await createWebhook(server, m, r.url, ['sale.paid']);
    const res = await rotate(m, hook.id, { overlapHours: 1 });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const fresh = res.body.secret;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(hook.secret);

    await recordFact(server, m.accountId, 'sale.paid');
    const [got] = await r.waitFor(1);
    const h = headersOf(got!);
    expect(h['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(h['x-service-signature-next']).toMatch(/^sha256=[0-9a-f]{64}$/);
    // a receiver still on the old secret, one already on the new one, and one holding both all verify it
    expect(standardVerifies(hook.secret, got!)).toBe(true);
    expect(standardVerifies(fresh, got!)).toBe(true);
    for (const secret of [hook.secret, fresh, [hook.secret, fresh]]) {
      expect(verifyWebhook({ body: got!.body, headers: got!.headers, secret })).toMatchObject({
        ok: true,
        eventType: 'sale.paid',
      });
    }
  });

  it('with overlapHours 0 only the new secret signs, at once', async () => {
    const m = await createMerchant(server);
    const r = await receiver();
    const hook = await createWebhook(server, m, r.url, ['sale.paid']);
    const { body } = await rotate(m, hook.id, { overlapHours: 0 });
    await recordFact(server, m.accountId, 'sale.paid');
    const [got] = await r.waitFor(1);
    expect(headersOf(got!)['x-service-signature-next']).toBeUndefined();
    expect(standardVerifies(body.secret, got!)).toBe(true);
    expect(standardVerifies(hook.secret, got!)).toBe(false);
    expect(verifyWebhook({ body: got!.body, headers: got!.headers, secret: hook.secret }).ok).toBe(false);
    expect(verifyWebhook({ body: got!.body, headers: got!.headers, secret: body.secret }).ok).toBe(true);
  });

  it('a rotation during another’s overlap starts from the secret the first answered: the one before stops signing', async () => {
    const m = await createMerchant(server);
    const r = await receiver();
    const hook = await createWebhook(server, m, r.url, ['sale.paid']);
    const first = (await rotate(m, hook.id, { overlapHours: 24 })).body.secret;
    const second = (await rotate(m, hook.id, { overlapHours: 24 })).body.secret;
    await recordFact(server, m.accountId, 'sale.paid');
    const [got] = await r.waitFor(1);
    expect(standardVerifies(first, got!)).toBe(true);
    expect(standardVerifies(second, got!)).toBe(true);
    expect(standardVerifies(hook.secret, got!)).toBe(false);
  });

  it('refuses overlapHours outside 0..168, and another account’s webhook (404)', async () => {
    const m = await createMerchant(server);
    const hook = await createWebhook(server, m, 'https://merchant.example.com/x');
    expect((await rotate(m, hook.id, { overlapHours: 169 })).status).toBe(400);
    expect((await rotate(m, hook.id, { overlapHours: -1 })).status).toBe(400);
    const other = await createMerchant(server);
    expect((await rotate(other, hook.id, {})).status).toBe(404);
  });
});

describe('POST /api/webhook/{id}/test', () => {
  it('sends a signed webhook.test delivery to that webhook only, logged like any other', async () => {
    const m = await createMerchant(server);
    const r = await receiver();
    const other = await receiver();
    const hook = await createWebhook(server, m, r.url, ['sale.paid']);
    await createWebhook(server, m, other.url, ['*']);
    const res = await call<{ eventId: string }>('POST', `${server.url}/api/webhook/${hook.id}/test`, {
      headers: m.panel,
    });
    expect(res.status).toBe(202);
    const [got] = await r.waitFor(1);
    const body = JSON.parse(got!.body.toString('utf8'));
    expect(body).toEqual({
      type: 'TEST',
      webhookId: hook.id,
      date: expect.any(String),
      eventType: 'webhook.test',
    });
    expect(Number.isNaN(Date.parse(body.date))).toBe(false);
    expect(headersOf(got!)['x-service-event-type']).toBe('webhook.test');
    expect(headersOf(got!)['x-service-event-id']).toBe(res.body.eventId);
    expect(verifyWebhook({ body: got!.body, headers: got!.headers, secret: hook.secret })).toMatchObject({
      ok: true,
      eventType: 'webhook.test',
    });
    const log = await waitUntil(async () => {
      const [d] = await deliveries(server, m, hook.id);
      return d?.status === 'DELIVERED' ? d : undefined;
    });
    expect(log).toMatchObject({ event: 'webhook.test', statusCode: 200, attempts: 1 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(other.received).toHaveLength(0);
  });
});

describe('automatic disabling, SKIPPED deliveries, re-enabling and recover', () => {
  it('disables a webhook whose receiver keeps answering 500, skips its facts, and recovers them once it is back', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const m = await createMerchant(server);
    const r = await receiver();
    r.setFallback({ status: 500 });
    const hook = await createWebhook(server, m, r.url, ['sale.paid']);
    for (let i = 0; i < 3; i++) await recordFact(server, m.accountId, 'sale.paid');

    const disabled = await waitUntil(
      async () => {
        const list = await call<{ id: number; status: string; disabledReason: string | null }[]>(
          'GET',
          `${server.url}/api/webhook`,
          { headers: m.panel },
        );
        const w = list.body.find((x) => x.id === hook.id);
        return w?.status === 'disabled' ? w : undefined;
      },
      30_000,
      () => 'the webhook to be disabled',
    );
    expect(disabled.disabledReason).toMatch(/HTTP 500/);
    const audit = await call<{ data: { action: string; actor: { type: string } }[] }>(
      'GET',
      `${server.url}/api/audit-log`,
      { headers: m.panel },
    );
    expect(audit.body.data.find((e) => e.action === 'webhook.disabled')?.actor.type).toBe('operator');
    // the users who manage webhooks are told by e-mail (here the owner), once
    const mail = await mailbox.waitFor(m.email, /Webhook desativado/);
    expect(mail.text).toContain(r.url);
    expect(mail.html).toContain('#/webhooks');
    expect(mailbox.to(m.email).filter((x) => /Webhook desativado/.test(x.subject))).toHaveLength(1);

    // deliveries still waiting for a retry were skipped; a new fact is logged SKIPPED and not sent
    const before = r.received.length;
    await recordFact(server, m.accountId, 'sale.paid');
    const skipped = await waitUntil(async () => {
      const list = await deliveries(server, m, hook.id);
      return list.length === 4 && list[0]!.status === 'SKIPPED' ? list : undefined;
    });
    // no attempt, so no status code and no error (decisions.md: those of the last attempt, null when none)
    expect(skipped[0]).toMatchObject({ attempts: 0, statusCode: null, error: null });

    // a disabled webhook gets no deliveries: a test event is logged SKIPPED; recover and resend answer 400
    const test = await call('POST', `${server.url}/api/webhook/${hook.id}/test`, { headers: m.panel });
    expect(test.status).toBe(202);
    const withTest = await deliveries(server, m, hook.id);
    expect(withTest).toHaveLength(5);
    expect(withTest[0]).toMatchObject({ event: 'webhook.test', status: 'SKIPPED', attempts: 0, error: null });
    const refusedRecover = await call<{ error: { code: string; message: string } }>(
      'POST',
      `${server.url}/api/webhook/${hook.id}/recover`,
      { headers: m.panel, body: { since } },
    );
    expect(refusedRecover.status).toBe(400);
    expect(refusedRecover.body.error.code).toBe('VALIDATION_ERROR');
    expect(refusedRecover.body.error.message).toMatch(/disabled/);
    const refusedResend = await call<{ error: { code: string } }>(
      'POST',
      `${server.url}/api/webhook/deliveries/${skipped[0]!.id}/resend`,
      { headers: m.panel },
    );
    expect(refusedResend.status).toBe(400);
    expect(refusedResend.body.error.code).toBe('VALIDATION_ERROR');
    expect((await deliveries(server, m, hook.id)).filter((d) => d.status === 'SKIPPED')).toHaveLength(
      withTest.filter((d) => d.status === 'SKIPPED').length,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(r.received.length).toBe(before);

    const stats = await call<Record<string, unknown>>(
      'GET',
      `${server.url}/api/webhook/${hook.id}/stats?hours=1`,
      {
        headers: m.panel,
      },
    );
    expect(stats.status).toBe(200);
    expect(stats.body.delivered).toBe(0);
    // deliveries skipped while retries were pending count in none of the three; any that failed for good did
    expect([0, null]).toContain(stats.body.successRate);
    expect((stats.body.failed as number) + (stats.body.pending as number)).toBeLessThanOrEqual(3);

    // the receiver is fixed; the merchant re-enables the webhook and recovers what failed or was skipped
    r.setFallback({ status: 200 });
    const enabled = await call<{ status: string; disabledReason: string | null }>(
      'PUT',
      `${server.url}/api/webhook/${hook.id}`,
      { headers: m.panel, body: { status: 'active' } },
    );
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ status: 'active', disabledReason: null });
    for (const bad of ['2026-02-30T00:00:00Z', '0000-01-01T00:00:00Z', 'ontem']) {
      const refused = await call('POST', `${server.url}/api/webhook/${hook.id}/recover`, {
        headers: m.panel,
        body: { since: bad },
      });
      expect(refused.status, bad).toBe(400);
    }
    const recovered = await call<{ queued: number }>('POST', `${server.url}/api/webhook/${hook.id}/recover`, {
      headers: m.panel,
      body: { since },
    });
    expect(recovered.status).toBe(202);
    expect(recovered.body.queued).toBe(5);
    const done = await waitUntil(async () => {
      const list = await deliveries(server, m, hook.id);
      return list.every((d) => d.status === 'DELIVERED') ? list : undefined;
    });
    expect(done).toHaveLength(5);
    const redelivered = r.received.slice(before);
    expect(redelivered.length).toBeGreaterThanOrEqual(5);
    for (const got of redelivered) expect(headersOf(got)['x-service-redelivery']).toBe('true');

    const after = await call<{ delivered: number; successRate: number; p50Ms: number | null }>(
      'GET',
      `${server.url}/api/webhook/${hook.id}/stats`,
      { headers: m.panel },
    );
    expect(after.body).toMatchObject({ delivered: 5, failed: 0, pending: 0, successRate: 1 });
    expect(after.body.p50Ms).toEqual(expect.any(Number));
  });

  it('recovers only the deliveries created in [since, until)', async () => {
    const m = await createMerchant(server);
    const r = await receiver();
    r.setFallback({ status: 410 }); // a 4xx is not retried: FAILED at once
    const hook = await createWebhook(server, m, r.url, ['sale.paid']);
    const since = new Date(Date.now() - 1000).toISOString();
    await recordFact(server, m.accountId, 'sale.paid');
    const first = await waitUntil(async () => {
      const [d] = await deliveries(server, m, hook.id);
      return d?.status === 'FAILED' ? d : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const until = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await recordFact(server, m.accountId, 'sale.paid');
    await waitUntil(async () => {
      const list = await deliveries(server, m, hook.id);
      return list.length === 2 && list.every((d) => d.status === 'FAILED') ? list : undefined;
    });
    r.setFallback({ status: 200 });
    const res = await call<{ queued: number }>('POST', `${server.url}/api/webhook/${hook.id}/recover`, {
      headers: m.panel,
      body: { since, until },
    });
    expect(res.status).toBe(202);
    expect(res.body.queued).toBe(1);
    const after = await waitUntil(async () => {
      const list = await deliveries(server, m, hook.id);
      return list.some((d) => d.status === 'DELIVERED') ? list : undefined;
    });
    expect(after.find((d) => d.status === 'DELIVERED')!.id).toBe(first.id);
    expect(after.filter((d) => d.status === 'FAILED')).toHaveLength(1);
  });

  it('refuses a bad status, window or hours with 400', async () => {
    const m = await createMerchant(server);
    const hook = await createWebhook(server, m, 'https://merchant.example.com/x');
    const put = await call('PUT', `${server.url}/api/webhook/${hook.id}`, {
      headers: m.panel,
      body: { status: 'paused' },
    });
    expect(put.status).toBe(400);
    for (const body of [
      {},
      { since: 'yesterday' },
      { since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' },
    ]) {
      const res = await call('POST', `${server.url}/api/webhook/${hook.id}/recover`, {
        headers: m.panel,
        body,
      });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    for (const hours of ['0', '721', 'x', '1.5']) {
      const res = await call('GET', `${server.url}/api/webhook/${hook.id}/stats?hours=${hours}`, {
        headers: m.panel,
      });
      expect(res.status, hours).toBe(400);
      expect(res.body).toEqual({
        success: false,
        error: { code: 'VALIDATION_ERROR', message: 'hours must be a whole number from 1 to 720' },
      });
    }
  });
});
