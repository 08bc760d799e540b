/**
 * Every event the gateway sends, delivered for real to a local HTTP receiver, verified by the three verifiers a
 * receiver may use (the TypeScript SDK, the Python SDK and the server's own `verify`): each body states its
 * event (`eventType`), equal to X-Service-Event-Type, and each verifier takes the type from there, a partial
 * refund's sale.refunded (a PAGO sale) included. Postbacks state their event too, under their own signature.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook as sdkVerify } from '../../sdk/src/index.js';
import { trigger } from '../../src/cli/integrator/trigger.js';
import { EVENT_NAMES } from '../../src/webhooks/events.js';
import { verifyWebhook as serverVerify, verifyPostback } from '../../src/webhooks/verify.js';
import { moveTo, saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { verifyWithPython } from '../support/python-sdk.js';
import { type Received, type Receiver, startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
import { type CreatedWebhook, createWebhook } from '../support/webhooks.js';

const POSTBACK_SECRET = 'postback-secret-of-the-event-types-test';

let server: TestServer;
let receiver: Receiver;
let merchant: TestMerchant;
let hook: CreatedWebhook;
/** Every delivery of the merchant's facts to its webhook, once each (by event id), and its postbacks. */
let webhookDeliveries: Received[];
let postbacks: Received[];
let partialRefundEventId: string;

const header = (r: Received, name: string) => {
  const v = r.headers[name];
  return Array.isArray(v) ? v[0] : v;
};
const bodyOf = (r: Received) => JSON.parse(r.body.toString('utf8')) as Record<string, unknown>;

beforeAll(async () => {
  server = await startServer({ env: { POSTBACK_SECRET } });
  receiver = await startReceiver();
  merchant = await createMerchant(server, 'Event Types Merchant');
  // every event, cart and dispute ones selected explicitly
  hook = await createWebhook(server, merchant, `${receiver.url}/hook`, [...EVENT_NAMES]);
  const target = { url: server.url, publicKey: merchant.publicKey, privateKey: merchant.privateKey };
  for (const event of EVENT_NAMES) await trigger(target, event);

  // a partial refund (the sale stays PAGO) and the last one, of a sale with a postback
  const sale = await call<{ id: number; uuid: string }>('POST', `${server.url}/api/sandbox/sales`, {
    headers: merchant.keys,
    body: saleInput({ amount: 10000, postbackUrl: `${receiver.url}/postback` }),
  });
  expect(sale.status, sale.text).toBe(201);
  expect((await moveTo(server, merchant, sale.body.id, 'PAGO')).status).toBe(200);
  const refund = (amountCents?: number) =>
    call<{ status: string; refund: { id: string } }>(
      'POST',
      `${server.url}/api/transactions/${sale.body.uuid}/refund`,
      { headers: merchant.keys, ...(amountCents ? { body: { amountCents } } : {}) },
    );
  const partial = await refund(3000);
  expect(partial.status, partial.text).toBe(202);
  expect(partial.body.status).toBe('PAGO');
  expect((await refund()).body.status).toBe('ESTORNADO');
  const [fact] = await server.runtime.platform.db.query<{ id: string }>(
    `SELECT id FROM notification_events WHERE subject_type = 'sale' AND subject_id = $1
        AND event_type = 'sale.refunded' ORDER BY created_at, id LIMIT 1`,
    [sale.body.id],
  );
  partialRefundEventId = fact!.id;

  const test = await call('POST', `${server.url}/api/webhook/${hook.id}/test`, { headers: merchant.panel });
  expect(test.status, test.text).toBeLessThan(300);

  // every fact of the account (and the test) delivered to the webhook; the postbacks of the final statuses
  const facts = await server.runtime.platform.db.query<{ id: string }>(
    'SELECT id FROM notification_events WHERE account_id = $1',
    [merchant.accountId],
  );
  webhookDeliveries = await waitUntil(
    () => {
      const byId = new Map<string, Received>();
      for (const r of receiver.received) {
        const id = header(r, 'x-service-event-id');
        if (r.path === '/hook' && id && !byId.has(id)) byId.set(id, r);
      }
      return facts.every((f) => byId.has(f.id)) ? [...byId.values()] : undefined;
    },
    60_000,
    () => `deliveries of ${facts.length} facts`,
  );
  postbacks = await waitUntil(
    () => {
      const got = receiver.received.filter((r) => r.path === '/postback');
      return got.length >= 2 ? got : undefined;
    },
    30_000,
    () => 'the paid and refunded postbacks',
  );
}, 240_000);

afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

describe('every notification body states its event', () => {
  it('each delivery carries eventType, equal to X-Service-Event-Type; every event of the catalogue was sent', () => {
    const types = new Set<string>();
    for (const r of webhookDeliveries) {
      const claimed = header(r, 'x-service-event-type')!;
      expect(bodyOf(r).eventType, r.body.toString('utf8')).toBe(claimed);
      types.add(claimed);
    }
    expect([...types].sort()).toEqual([...EVENT_NAMES, 'webhook.test'].sort());
  });

  it('the TypeScript SDK and the server verifier verify each delivery and take its type from the body', () => {
    for (const r of webhookDeliveries) {
      const claimed = header(r, 'x-service-event-type');
      const sdk = sdkVerify({ body: r.body, headers: r.headers, secret: hook.secret });
      expect(sdk.eventType, r.body.toString('utf8')).toBe(claimed);
      expect(sdk.eventId).toBe(header(r, 'x-service-event-id'));
      const own = serverVerify({ body: r.body, headers: r.headers, secret: hook.secret });
      expect(own, r.body.toString('utf8')).toMatchObject({ ok: true, eventType: claimed });
    }
  });

  it('the Python SDK verifies each delivery with the same event id and type', async () => {
    const verdicts = await verifyWithPython(
      webhookDeliveries.map((r) => ({ body: r.body, headers: r.headers, secret: hook.secret })),
    );
    expect(verdicts).toEqual(
      webhookDeliveries.map((r) => ({
        eventId: header(r, 'x-service-event-id'),
        eventType: header(r, 'x-service-event-type'),
      })),
    );
  });

  it("a partial refund's sale.refunded (the sale still PAGO) verifies as sale.refunded in all three", async () => {
    const r = webhookDeliveries.find((d) => header(d, 'x-service-event-id') === partialRefundEventId)!;
    expect(bodyOf(r)).toMatchObject({ status: 'PAGO', refundedAmount: '3000', eventType: 'sale.refunded' });
    expect(sdkVerify({ body: r.body, headers: r.headers, secret: hook.secret }).eventType).toBe(
      'sale.refunded',
    );
    expect(serverVerify({ body: r.body, headers: r.headers, secret: hook.secret })).toMatchObject({
      ok: true,
      eventType: 'sale.refunded',
    });
    const [python] = await verifyWithPython([{ body: r.body, headers: r.headers, secret: hook.secret }]);
    expect(python).toEqual({ eventId: partialRefundEventId, eventType: 'sale.refunded' });
  });

  it('postbacks state their event too, under their X-Signature', () => {
    const events = postbacks.map((r) => {
      expect(
        verifyPostback({
          body: r.body,
          signature: header(r, 'x-signature'),
          postbackSecret: POSTBACK_SECRET,
        }),
      ).toBe(true);
      return bodyOf(r).eventType;
    });
    expect(new Set(events)).toEqual(new Set(['sale.paid', 'sale.refunded']));
  });
});
