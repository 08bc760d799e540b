import { afterAll, beforeAll, expect, it } from 'vitest';
import { verifyPostback, verifyWebhook } from '../../src/webhooks/verify.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { recordFact, salePostbackBody, saleWebhookBody } from '../support/notifications.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
import { createWebhook, deliveries } from '../support/webhooks.js';

// `npm start` runs on the embedded database: the delivery engine (fan-out with first-attempt claims, claims,
// outcome writes, the queue's settings) must work there as on PostgreSQL.
const POSTBACK_SECRET = 'pglite-postback-secret';
let server: TestServer;
let merchant: TestMerchant;
let receiver: Receiver;

beforeAll(async () => {
  server = await startServer({
    env: {
      DATABASE_URL: '',
      POSTBACK_SECRET,
      WEBHOOK_RETRY_DELAYS_MS: '200,200',
      WEBHOOK_TIMEOUT_MS: '1000',
    },
  });
  merchant = await createMerchant(server);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

it('delivers signed webhooks and postbacks, retrying a 500, on PGlite', async () => {
  expect(server.runtime.platform.db.kind).toBe('pglite');
  const hook = await createWebhook(server, merchant, `${receiver.url}/hook`, ['sale.paid']);
  receiver.queue({ status: 500 });
  const body = saleWebhookBody(merchant.accountId);
  const postback = salePostbackBody(body);
  const eventId = await recordFact(server, merchant.accountId, 'sale.paid', {
    body,
    postback: { url: `${receiver.url}/postback`, body: postback },
  });

  // webhook: a 500 then a 200; postback: a 200 (which of the two the 500 hit depends on arrival order)
  const got = await receiver.waitFor(3);
  const hooks = got.filter((r) => r.path === '/hook');
  const postbacks = got.filter((r) => r.path === '/postback');
  expect(hooks.length + postbacks.length).toBe(3);
  for (const r of hooks) {
    expect(r.headers['x-service-event-id']).toBe(eventId);
    expect(verifyWebhook({ body: r.body, headers: r.headers, secret: hook.secret }).ok).toBe(true);
  }
  for (const r of postbacks) {
    expect(JSON.parse(r.body.toString('utf8'))).toEqual(postback);
    const signature = r.headers['x-signature'] as string;
    expect(verifyPostback({ body: r.body, signature, postbackSecret: POSTBACK_SECRET })).toBe(true);
  }

  const log = await waitUntil(async () => {
    const l = await deliveries(server, merchant, hook.id);
    return l[0]?.status === 'DELIVERED' ? l : undefined;
  });
  expect(log).toEqual([
    expect.objectContaining({ eventId, event: 'sale.paid', statusCode: 200, attempts: hooks.length }),
  ]);
  const rows = await waitUntil(async () => {
    const r = await server.runtime.platform.db.query<{ kind: string; status: string; attempts: number }>(
      `SELECT kind, status, attempts FROM notification_deliveries WHERE event_id = $1 ORDER BY kind`,
      [eventId],
    );
    return r.every((x) => x.status === 'DELIVERED') ? r : undefined;
  });
  expect(rows).toEqual([
    { kind: 'postback', status: 'DELIVERED', attempts: postbacks.length },
    { kind: 'webhook', status: 'DELIVERED', attempts: hooks.length },
  ]);
  const [waiting] = await server.runtime.platform.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM notification_outbox',
  );
  expect(waiting!.n).toBe(0);
});
