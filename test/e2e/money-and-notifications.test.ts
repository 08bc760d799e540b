/**
 * One merchant's whole day through the public surface only (spec + decisions.md): a webhook and a postback
 * receiver, a sandbox sale paid, a cashout submitted, completed, and the ledger still balanced. Each
 * notification is checked as a merchant would check it: signature over the raw bytes, event ids, bodies.
 */
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../src/ledger/verify.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';

const POSTBACK_SECRET = 'e2e-postback-secret';
let server: TestServer;
let merchant: TestMerchant;
let hooks: Receiver;
let postbacks: Receiver;
let secret: string;

const header = (r: { headers: Record<string, unknown> }, name: string) => String(r.headers[name]);
const eventsOf = (rs: Receiver) => rs.received.map((r) => header(r, 'x-service-event-type'));

function expectSigned(r: Receiver['received'][number]) {
  const ts = header(r, 'x-service-timestamp');
  const expected = `sha256=${createHmac('sha256', secret).update(`${ts}.`).update(r.body).digest('hex')}`;
  expect(header(r, 'x-service-signature')).toBe(expected);
  expect(Math.abs(Date.now() / 1000 - Number(ts))).toBeLessThan(300);
  // Standard Webhooks: the ecosystem's own library accepts the same delivery.
  const swh = new Webhook(secret.slice('whsec_'.length));
  expect(() =>
    swh.verify(r.body.toString('utf8'), {
      'webhook-id': header(r, 'webhook-id'),
      'webhook-timestamp': header(r, 'webhook-timestamp'),
      'webhook-signature': header(r, 'webhook-signature'),
    }),
  ).not.toThrow();
}

beforeAll(async () => {
  server = await startServer({ env: { POSTBACK_SECRET, WEBHOOK_RETRY_DELAYS_MS: '200,400' } });
  merchant = await createMerchant(server, 'E2E Merchant');
  hooks = await startReceiver();
  postbacks = await startReceiver();
  const created = await call<{ id: number; secret: string; events: string[] }>(
    'POST',
    `${server.url}/api/webhook`,
    {
      headers: merchant.panel,
      body: { webhookUrl: `${hooks.url}/hooks`, events: ['*'] },
    },
  );
  expect(created.status, created.text).toBe(201);
  secret = created.body.secret;
  expect(secret).toMatch(/^whsec_/);
});

afterAll(async () => {
  await server?.close();
  await hooks?.close();
  await postbacks?.close();
});

describe('a sale, then a cashout, end to end', () => {
  let saleId: number;
  let saleUuid: string;

  it('a paid sale reaches the webhook (pending, paid) and the postback (paid only), signed', async () => {
    const sale = await call<{ id: number; uuid: string; status: string; netAmount: number }>(
      'POST',
      `${server.url}/api/sandbox/sales`,
      {
        headers: merchant.keys,
        body: {
          amount: 150000,
          paymentMethod: 'PIX',
          customer: {
            name: 'Ana Souza',
            email: 'ana@example.com',
            document: '52998224725',
            phone: '11987654321',
          },
          items: [{ title: 'Curso', unitPrice: 150000, quantity: 1, tangible: false }],
          postbackUrl: `${postbacks.url}/pb`,
        },
      },
    );
    expect(sale.status, sale.text).toBe(201);
    expect(sale.body.status).toBe('PENDENTE');
    saleId = sale.body.id;
    saleUuid = sale.body.uuid;

    const paid = await call('POST', `${server.url}/api/sandbox/sales/${saleUuid}/status`, {
      headers: merchant.keys,
      body: { status: 'PAGO' },
    });
    expect(paid.status, paid.text).toBe(200);

    await hooks.waitFor(2);
    await postbacks.waitFor(1);
    expect(eventsOf(hooks).sort()).toEqual(['sale.paid', 'sale.pending']);
    for (const r of hooks.received) expectSigned(r);
    const paidHook = hooks.received.find((r) => header(r, 'x-service-event-type') === 'sale.paid')!;
    const body = JSON.parse(paidHook.body.toString('utf8'));
    expect(body).toMatchObject({
      id: saleId,
      uuid: saleUuid,
      userId: merchant.accountId,
      amount: '150000',
      status: 'PAGO',
      paymentMethod: 'PIX',
      transactionId: saleId,
      type: 'TRANSACTION',
    });
    expect(typeof body.fee).toBe('number');
    expect(header(paidHook, 'x-service-redelivery')).toBe('undefined');
    const ids = hooks.received.map((r) => header(r, 'x-service-event-id'));
    expect(new Set(ids).size).toBe(2);

    const pb = postbacks.received[0]!;
    expect(header(pb, 'x-signature')).toBe(
      createHmac('sha256', POSTBACK_SECRET).update(pb.body).digest('hex'),
    );
    const pbBody = JSON.parse(pb.body.toString('utf8'));
    expect(pbBody).toMatchObject({ id: saleId, uuid: saleUuid, status: 'PAGO' });
    expect(pbBody).toHaveProperty('externalTransactionId');
    expect(pbBody).not.toHaveProperty('fee');
    expect(pbBody).not.toHaveProperty('transactionId');
    expect(pbBody).not.toHaveProperty('type');
  });

  it('the sale is looked up by both ids and the balance holds its net', async () => {
    const byUuid = await call<{ id: number; status: string; netAmount: number; reserveAmount: number }>(
      'GET',
      `${server.url}/api/transactions/${saleUuid}`,
      { headers: merchant.keys },
    );
    const byId = await call('GET', `${server.url}/api/transactions/${saleId}`, { headers: merchant.keys });
    expect(byUuid.status).toBe(200);
    expect(byId.body).toEqual(byUuid.body);
    expect(byUuid.body.status).toBe('PAGO');
    const balance = await call<{ available: number; blocked: number; total: number }>(
      'GET',
      `${server.url}/api/public/balance`,
      { headers: merchant.keys },
    );
    expect(balance.body.available).toBe(byUuid.body.netAmount - byUuid.body.reserveAmount);
    expect(balance.body.total).toBe(balance.body.available + balance.body.blocked);
  });

  it('a cashout goes PENDING → PROCESSING → COMPLETED, notifying withdrawal.pending and .completed', async () => {
    const before = (
      await call<{ available: number; blocked: number }>('GET', `${server.url}/api/public/balance`, {
        headers: merchant.keys,
      })
    ).body;
    const created = await call<{ id: number; uuid: string; status: string; amount: string }>(
      'POST',
      `${server.url}/api/public/cashout`,
      {
        headers: { ...merchant.keys, 'idempotency-key': 'e2e-1' },
        body: { amount: 250.5, pixKey: '52998224725' },
      },
    );
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ status: 'PENDING', amount: '250.50', pixKeyType: 'CPF' });
    expect(created.body).not.toHaveProperty('updatedAt');

    const replay = await call('POST', `${server.url}/api/public/cashout`, {
      headers: { ...merchant.keys, 'idempotency-key': 'e2e-1' },
      body: { amount: 250.5, pixKey: '52998224725' },
    });
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(created.body);

    const afterCreate = (
      await call<{ available: number; blocked: number }>('GET', `${server.url}/api/public/balance`, {
        headers: merchant.keys,
      })
    ).body;
    expect(afterCreate.available).toBe(before.available - 25050);
    expect(afterCreate.blocked).toBe(before.blocked + 25050);

    await waitUntil(async () => {
      const w = await call<{ status: string }>(
        'GET',
        `${server.url}/api/public/cashout/${created.body.uuid}`,
        {
          headers: merchant.keys,
        },
      );
      return w.body.status === 'PROCESSING';
    });
    const result = await call('POST', `${server.url}/api/sandbox/cashouts/${created.body.uuid}/result`, {
      headers: merchant.keys,
      body: { result: 'COMPLETED' },
    });
    expect(result.status, result.text).toBe(200);

    await hooks.waitFor(4);
    const withdrawals = hooks.received.filter((r) =>
      header(r, 'x-service-event-type').startsWith('withdrawal.'),
    );
    expect(withdrawals.map((r) => header(r, 'x-service-event-type'))).toEqual([
      'withdrawal.pending',
      'withdrawal.completed',
    ]);
    for (const r of withdrawals) {
      expectSigned(r);
      const body = JSON.parse(r.body.toString('utf8'));
      expect(body).toMatchObject({
        id: created.body.id,
        uuid: created.body.uuid,
        userId: merchant.accountId,
        amount: '250.50',
        type: 'WITHDRAWAL',
        user: { id: merchant.accountId, name: 'E2E Merchant', email: merchant.email },
      });
    }
    expect(JSON.parse(withdrawals[1]!.body.toString('utf8')).status).toBe('COMPLETED');

    const after = (
      await call<{ available: number; blocked: number }>('GET', `${server.url}/api/public/balance`, {
        headers: merchant.keys,
      })
    ).body;
    expect(after).toMatchObject({ available: before.available - 25050, blocked: before.blocked });
    expect(postbacks.received).toHaveLength(1); // withdrawals never use the sale postback
  });

  it('the delivery log shows each delivery, and a resend repeats the same bytes and event id', async () => {
    const list = await call<{ id: number }[]>('GET', `${server.url}/api/webhook`, {
      headers: merchant.panel,
    });
    const log = await call<
      { id: number; eventId: string; event: string; status: string; attempts: number }[]
    >('GET', `${server.url}/api/webhook/${list.body[0]!.id}/deliveries?limit=100`, {
      headers: merchant.panel,
    });
    expect(log.status).toBe(200);
    expect(log.body).toHaveLength(4);
    expect(log.body.every((d) => d.status === 'DELIVERED' && d.attempts === 1)).toBe(true);
    const paid = log.body.find((d) => d.event === 'sale.paid')!;
    const resend = await call('POST', `${server.url}/api/webhook/deliveries/${paid.id}/resend`, {
      headers: merchant.panel,
    });
    expect(resend.status).toBe(202);
    const [again] = (await hooks.waitFor(5)).slice(4);
    const original = hooks.received.find((r) => header(r, 'x-service-event-type') === 'sale.paid')!;
    expect(again!.body.equals(original.body)).toBe(true);
    expect(header(again!, 'x-service-event-id')).toBe(paid.eventId);
    expect(header(again!, 'x-service-redelivery')).toBe('true');
    expectSigned(again!);
  });

  it('leaves a balanced ledger', async () => {
    const report = await verifyLedger(server.runtime.platform.db);
    expect(report.problems).toEqual([]);
  });
});
