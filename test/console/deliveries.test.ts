import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxSale } from '../sales/fixtures.js';
import { createMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { createOperator, type TestOperator } from '../support/operators.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
import { createWebhook } from '../support/webhooks.js';

let server: TestServer;
let receiver: Receiver;
let support: TestOperator;

beforeAll(async () => {
  server = await startServer();
  receiver = await startReceiver();
  support = await createOperator(server, 'support');
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

describe("an account's deliveries in the console", () => {
  it('support reads the webhooks and their deliveries, and resends one (audited)', async () => {
    const m = await createMerchant(server);
    const hook = await createWebhook(server, m, receiver.url, ['sale.pending']);
    await sandboxSale(server, m, {});
    await receiver.waitFor(1);

    const hooks = await call<{ id: number }[]>(
      'GET',
      `${server.url}/api/ops/accounts/${m.accountId}/webhooks`,
      {
        headers: support.ops,
      },
    );
    expect(hooks.body.map((h) => h.id)).toEqual([hook.id]);
    // an account that does not exist is not found, as on its other routes (not an empty list)
    const none = await call<{ error: { code: string } }>(
      'GET',
      `${server.url}/api/ops/accounts/999999999/webhooks`,
      { headers: support.ops },
    );
    expect([none.status, none.body.error?.code]).toEqual([404, 'NOT_FOUND']);
    const deliveries = await call<{ id: number; status: string }[]>(
      'GET',
      `${server.url}/api/ops/accounts/${m.accountId}/webhooks/${hook.id}/deliveries`,
      { headers: support.ops },
    );
    expect(deliveries.body).toHaveLength(1);
    const resent = await call(
      'POST',
      `${server.url}/api/ops/accounts/${m.accountId}/deliveries/${deliveries.body[0]!.id}/resend`,
      {
        headers: support.ops,
        body: {},
      },
    );
    expect(resent.status).toBe(202);
    await waitUntil(() => receiver.received.length >= 2);
    expect(receiver.received[1]!.headers['x-service-redelivery']).toBe('true');

    // another account's delivery is not found through this one
    const other = await createMerchant(server);
    const wrong = await call(
      'POST',
      `${server.url}/api/ops/accounts/${other.accountId}/deliveries/${deliveries.body[0]!.id}/resend`,
      {
        headers: support.ops,
        body: {},
      },
    );
    expect(wrong.status).toBe(404);
    const audit = await call<{ data: { action: string }[] }>(
      'GET',
      `${server.url}/api/ops/audit?accountId=${m.accountId}`,
      {
        headers: support.ops,
      },
    );
    expect(audit.body.data[0]!.action).toBe('delivery.resent');
  });
});
