import { afterAll, beforeAll, expect, it } from 'vitest';
import { DELIVERY_LIMITS, startNotificationWorkers } from '../../src/webhooks/workers.js';
import { moveTo, sandboxSale } from '../sales/fixtures.js';
import { createMerchant } from '../support/factories.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { createWebhook } from '../support/webhooks.js';

let server: TestServer;
let receiver: Receiver;
let stopWorkers: () => Promise<void>;

beforeAll(async () => {
  server = await startServer({ workers: false });
  receiver = await startReceiver();
  // the dispatcher's idle poll and claims an hour apart: only the settler's word can bring a fact out now
  // (the sweeper's backstop takes facts 10 s old)
  stopWorkers = await startNotificationWorkers(server.runtime.platform, {
    ...DELIVERY_LIMITS,
    fanOutIdleMs: 3_600_000,
    claimIdleMs: 3_600_000,
  });
});
afterAll(async () => {
  await stopWorkers?.();
  await receiver?.close();
  await server?.close();
});

it('a settled sale is fanned out when its transaction commits, not at the next poll', async () => {
  const merchant = await createMerchant(server);
  await createWebhook(server, merchant, `${receiver.url}/hook`, ['sale.paid']);
  // let the dispatcher's first round (at start) pass: it now sleeps for an hour unless woken
  await new Promise((r) => setTimeout(r, 300));
  for (let i = 0; i < 3; i++) {
    const sale = await sandboxSale(server, merchant);
    const paid = await moveTo(server, merchant, sale.id, 'PAGO');
    expect(paid.status).toBe(200);
    // well inside the sweeper's 10 s: the settler's commit woke the dispatcher
    const arrived = (await receiver.waitFor(i + 1, 5000))[i]!;
    expect(JSON.parse(arrived.body.toString('utf8'))).toMatchObject({ id: sale.id, status: 'PAGO' });
  }
});
