/**
 * The SDKs' receiving helpers against a real gateway's deliveries: webhookHandler / handleWebhook (TypeScript)
 * and handle_webhook (Python) answer 400 to a forged delivery, 500 when the merchant's handler fails (and the
 * gateway's retry is then handled), 200 without a second call for a resent one; Gateway.fromEnv /
 * Gateway.from_env read the quickstart's variables and name the one missing; isSaleEvent narrows.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EventIdDeduplicator,
  Gateway,
  handleWebhook,
  isSaleEvent,
  verifyWebhook,
  type WebhookEvent,
  webhookHandler,
} from '../../sdk/src/index.js';
import { signWebhook } from '../../src/webhooks/signing.js';
import { moveTo, saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { freePort } from '../support/ports.js';
import { startServer, type TestServer } from '../support/server.js';
import { type Running, spawnCollecting } from '../support/snippets.js';
import { waitUntil } from '../support/wait.js';
import { createWebhook, deliveries } from '../support/webhooks.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PYTHON = process.env.PYTHON || 'python3';
let server: TestServer;
let node: Server | undefined;
let python: Running | undefined;

beforeAll(async () => {
  server = await startServer({ env: { WEBHOOK_RETRY_DELAYS_MS: '300,300' } });
});
afterAll(async () => {
  python?.stop();
  await new Promise((resolve) => (node ? node.close(resolve) : resolve(undefined)));
  await server?.close();
});

/** A paid sale of the merchant, its sale.paid delivery then retried (the first attempt answered 500). */
async function paidSale(merchant: TestMerchant): Promise<string> {
  const sale = await call<{ id: number; uuid: string }>('POST', `${server.url}/api/transactions`, {
    headers: merchant.keys,
    body: saleInput(),
  });
  expect(sale.status, sale.text).toBe(201);
  expect((await moveTo(server, merchant, sale.body.id, 'PAGO')).status).toBe(200);
  return sale.body.uuid;
}

/** The delivery log of the webhook once its sale.paid has a final status. */
async function delivered(merchant: TestMerchant, hookId: number) {
  return waitUntil(async () => {
    const [d] = await deliveries(server, merchant, hookId);
    return d && d.status !== 'PENDING' ? d : undefined;
  }, 20_000);
}

async function resendAndWait(merchant: TestMerchant, hookId: number, id: number, attempts: number) {
  const resent = await call('POST', `${server.url}/api/webhook/deliveries/${id}/resend`, {
    headers: merchant.panel,
  });
  expect(resent.status, resent.text).toBe(202);
  return waitUntil(async () => {
    const d = (await deliveries(server, merchant, hookId)).find((e) => e.id === id);
    return d?.attempts === attempts && d.status !== 'PENDING' ? d : undefined;
  }, 20_000);
}

describe('webhookHandler (TypeScript)', () => {
  it('400 forged, 500 when onEvent throws (the retry is handled), 200 and no second call for a resend', async () => {
    const merchant = await createMerchant(server);
    const calls: WebhookEvent[] = [];
    const errors: string[] = [];
    let failNext = true;
    const port = await freePort();
    const hook = await createWebhook(server, merchant, `http://127.0.0.1:${port}/`, ['sale.paid']);
    node = createServer(
      webhookHandler({
        secret: hook.secret,
        onEvent: (event) => {
          calls.push(event);
          if (failNext) {
            failNext = false;
            throw new Error('the database is down');
          }
        },
        onError: (error, id) => errors.push(`${id}: ${error}`),
      }),
    );
    await new Promise<void>((resolve) => node!.listen(port, '127.0.0.1', resolve));
    expect((node.address() as AddressInfo).port).toBe(port);

    const uuid = await paidSale(merchant);
    const d = await delivered(merchant, hook.id);
    expect(d).toMatchObject({ status: 'DELIVERED', attempts: 2, statusCode: 200 });
    expect(calls.map((e) => [e.eventId, e.eventType])).toEqual([
      [d.eventId, 'sale.paid'],
      [d.eventId, 'sale.paid'],
    ]);
    expect(isSaleEvent(calls[0]!) && calls[0]!.payload.uuid).toBe(uuid);
    expect(errors).toEqual([`${d.eventId}: the database is down`]);

    expect(await resendAndWait(merchant, hook.id, d.id, 3)).toMatchObject({
      status: 'DELIVERED',
      statusCode: 200,
    });
    expect(calls).toHaveLength(2);

    const forged = await call('POST', `http://127.0.0.1:${port}/`, { body: { eventType: 'sale.paid' } });
    expect(forged.status).toBe(400);
    expect(forged.text).toBe('missing or malformed timestamp');
    expect(calls).toHaveLength(2);
  });

  it('answers a failed onEvent with a fixed text, never what it threw (the gateway keeps what it is answered)', async () => {
    const secret = `whsec_${Buffer.from('a secret of thirty-two bytes....').toString('base64')}`;
    const body = JSON.stringify({ eventType: 'sale.paid', uuid: 'x' });
    const { headers } = signWebhook(secret as never, 'evt_1', 'sale.paid', body, false);
    const thrown = new Error('password=hunter2 at db.internal:5432');
    const answer = await handleWebhook({
      body,
      headers,
      secret,
      deduplicator: new EventIdDeduplicator(),
      onEvent: () => {
        throw thrown;
      },
    });
    expect(answer).toEqual({
      status: 500,
      message: 'the receiver failed to handle this event; it is retried',
      error: thrown,
    });
  });

  it('a missing secret fails as the handler is made, and a parsed body is told as such', () => {
    const onEvent = () => {};
    for (const secret of [undefined, '', [], ['']]) {
      expect(() => webhookHandler({ secret: secret as unknown as string, onEvent })).toThrow(
        "secret is required: the webhook's whsec_… secret",
      );
    }
    expect(() =>
      verifyWebhook({ body: { a: 1 } as unknown as string, headers: {}, secret: 'whsec_x' }),
    ).toThrow('a parsed body does not verify');
  });

  it('isSaleEvent is true for sale.* only', () => {
    const event = (eventType: string | null) =>
      ({ eventId: 'e', eventType, timestamp: 0, payload: {} }) as WebhookEvent;
    expect(
      ['sale.paid', 'sale.refunded', 'withdrawal.pending', 'webhook.test', null].map((t) =>
        isSaleEvent(event(t)),
      ),
    ).toEqual([true, true, false, false, false]);
  });

  it('Gateway.fromEnv reads GATEWAY_URL, GATEWAY_PUBLIC_KEY and GATEWAY_PRIVATE_KEY, and names the one missing', async () => {
    const merchant = await createMerchant(server);
    const env = {
      GATEWAY_URL: server.url,
      GATEWAY_PUBLIC_KEY: merchant.publicKey,
      GATEWAY_PRIVATE_KEY: merchant.privateKey,
    };
    expect(await Gateway.fromEnv({}, env).balance.retrieve()).toMatchObject({ available: 0 });
    expect(() => Gateway.fromEnv({}, { ...env, GATEWAY_PRIVATE_KEY: '' })).toThrow(
      'GATEWAY_PRIVATE_KEY is not set',
    );
    expect(() => Gateway.fromEnv({}, {})).toThrow('GATEWAY_URL is not set');
  });
});

const PYTHON_RECEIVER = `
import os, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
from gateway_sdk import EventIdDeduplicator, Gateway, handle_webhook

seen = EventIdDeduplicator()
calls = []

def on_event(event):
    calls.append(event.event_id)
    print(f"call {len(calls)} {event.event_type} {event.event_id}", flush=True)
    if len(calls) == 1:
        raise RuntimeError("the database is down")

class Hook(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        status, text = handle_webhook(body=body, headers=self.headers, secret=os.environ["SECRET"], on_event=on_event, deduplicator=seen)
        print(f"answer {status} {text}", flush=True)
        self.send_response(status)
        self.end_headers()
        self.wfile.write(text.encode())

    def log_message(self, *args):
        pass

print("balance", Gateway.from_env().balance.retrieve()["available"], flush=True)
try:
    Gateway.from_env({"GATEWAY_URL": "http://x"})
except KeyError as err:
    print("missing", err.args[0], flush=True)
HTTPServer(("127.0.0.1", int(os.environ["PORT"])), Hook).serve_forever()
`;

describe('handle_webhook (Python)', () => {
  it('400 forged, 500 when on_event raises (the retry is handled), 200 and no second call for a resend; from_env', async () => {
    const merchant = await createMerchant(server);
    const port = await freePort();
    const hook = await createWebhook(server, merchant, `http://127.0.0.1:${port}/`, ['sale.paid']);
    python = spawnCollecting(PYTHON, ['-c', PYTHON_RECEIVER], {
      cwd: ROOT,
      env: {
        ...process.env,
        PYTHONPATH: path.join(ROOT, 'sdk-python'),
        PYTHONDONTWRITEBYTECODE: '1',
        GATEWAY_URL: server.url,
        GATEWAY_PUBLIC_KEY: merchant.publicKey,
        GATEWAY_PRIVATE_KEY: merchant.privateKey,
        SECRET: hook.secret,
        PORT: String(port),
      },
    });
    const out = python.out;
    await waitUntil(
      () => out.some((l) => l.startsWith('missing')),
      20_000,
      () => out.join('\n'),
    );
    expect(out.slice(0, 2)).toEqual(['balance 0', 'missing GATEWAY_PUBLIC_KEY is not set']);

    await paidSale(merchant);
    const d = await delivered(merchant, hook.id);
    expect(d).toMatchObject({ status: 'DELIVERED', attempts: 2, statusCode: 200 });
    const printed = () => out.filter((l) => !l.startsWith('stderr: '));
    expect(printed().slice(2)).toEqual([
      `call 1 sale.paid ${d.eventId}`,
      'answer 500 the receiver failed to handle this event; it is retried',
      `call 2 sale.paid ${d.eventId}`,
      'answer 200 ok',
    ]);
    // what on_event raised is the receiver's log (logging), not the gateway's
    expect(out).toContain(`stderr: webhook ${d.eventId} failed: RuntimeError: the database is down`);

    expect(await resendAndWait(merchant, hook.id, d.id, 3)).toMatchObject({
      status: 'DELIVERED',
      statusCode: 200,
    });
    expect(printed().slice(6)).toEqual(['answer 200 already handled']);

    const forged = await call('POST', `http://127.0.0.1:${port}/`, { body: { eventType: 'sale.paid' } });
    expect(forged.status).toBe(400);
    expect(forged.text).toBe('missing or malformed timestamp');
    expect(out.filter((l) => l.startsWith('call'))).toHaveLength(2);
  });
});
