/**
 * While the database is away, /metrics still answers, and what was waiting keeps ageing: the age gauges grow by
 * the time since their last read, so the alerts on them (docs/operations.md) still fire during an outage.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { moveTo, sandboxSale } from '../../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { admin } from '../../support/pg.js';
import { type Receiver, startReceiver } from '../../support/receiver.js';
import { startServer, type TestServer } from '../../support/server.js';
import { waitUntil } from '../../support/wait.js';
import { createWebhook } from '../../support/webhooks.js';

const TOKEN = 'metrics-outage-token';
let server: TestServer;
let merchant: TestMerchant;
let receiver: Receiver;

beforeAll(async () => {
  server = await startServer({ env: { METRICS_TOKEN: TOKEN } });
  merchant = await createMerchant(server);
  receiver = await startReceiver();
  receiver.setFallback({ status: 500 }); // the delivery stays pending: its age shows
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

async function oldestPending(): Promise<number> {
  const res = await call('GET', `${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  const line = res.text.split('\n').find((l) => l.startsWith('gateway_webhook_oldest_pending_seconds '));
  return Number(line?.split(' ')[1] ?? Number.NaN);
}

it('ages the oldest pending notification while the database is away', async () => {
  await createWebhook(server, merchant, receiver.url);
  const sale = await sandboxSale(server, merchant);
  expect((await moveTo(server, merchant, sale.id, 'PAGO')).status).toBe(200);
  const seen = await waitUntil(async () => {
    const age = await oldestPending();
    return age > 0 && age;
  });
  const name = new URL(server.databaseUrl).pathname.slice(1);
  // the database stops taking connections, and the ones it had are ended
  server.logs.expect(/./); // what the processes log while their database is away is this test's doing
  await admin(async (c) => {
    await c.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
    await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
  });
  try {
    const startedAt = Date.now();
    // past the gauges' one-second cache: the next scrape reads (and fails)
    await new Promise((r) => setTimeout(r, 2_500));
    const during = await oldestPending();
    expect(during).toBeGreaterThanOrEqual(seen + (Date.now() - startedAt) / 1000 - 1.5);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await oldestPending()).toBeGreaterThan(during);
  } finally {
    await admin((c) => c.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS true`));
  }
  await waitUntil(async () => (await call('GET', `${server.url}/health`)).status === 200, 20_000);
});
