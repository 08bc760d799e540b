/**
 * The outbox gauge ages only while facts wait to be fanned out (no worker, a failing database), not while a
 * slow receiver's deliveries wait: the alert on it means the pipeline itself is stuck. Workers off here, so
 * the test decides when fan-out happens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fanOutPending } from '../../../src/webhooks/fanout.js';
import { createMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { recordFact } from '../../support/notifications.js';
import { startServer, type TestServer } from '../../support/server.js';
import { createWebhook } from '../../support/webhooks.js';

const TOKEN = 'metrics-outbox-token';
let server: TestServer;

beforeAll(async () => {
  server = await startServer({ workers: false, env: { METRICS_TOKEN: TOKEN } });
});
afterAll(() => server?.close());

async function gauge(name: string): Promise<number> {
  const res = await call('GET', `${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const line = res.text.split('\n').find((l) => l.startsWith(`${name} `));
  expect(line, name).toBeDefined();
  return Number(line!.split(' ')[1]);
}

describe('gateway_notification_outbox_oldest_seconds', () => {
  it('is the age of the oldest fact not fanned out, and 0 once fan-out has run', async () => {
    const m = await createMerchant(server);
    await createWebhook(server, m, 'http://127.0.0.1:9/outbox-gauge', ['sale.paid']);
    const id = await recordFact(server, m.accountId, 'sale.paid');
    const { db } = server.runtime.platform;
    await db.query(
      `UPDATE notification_outbox SET created_at = now() - interval '100 seconds' WHERE event_id = $1`,
      [id],
    );
    expect(await gauge('gateway_notification_outbox_oldest_seconds')).toBeGreaterThanOrEqual(100);
    await fanOutPending(db, 100);
    // gauges are read at most once a second
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await gauge('gateway_notification_outbox_oldest_seconds')).toBe(0);
    // the delivery it became still waits: the other gauge counts it
    expect(await gauge('gateway_webhook_queue_depth')).toBeGreaterThan(0);
  });
});
