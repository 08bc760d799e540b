import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cieloChargebackSource } from '../../src/cards/index.js';
import { DevAcquirer } from '../../src/devacquirer/index.js';
import { Disputes, openNotifiedChargeback } from '../../src/disputes/index.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { cardBody, cardEnding, cieloEnv } from '../cards/cards.js';
import { eventsOf, type SaleBody, saleInput } from '../sales/fixtures.js';
import type { TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { balanceOf, type DisputeBody, disputeMerchant } from './fixtures.js';

const SECRET = 'cielo-header-value-for-tests';
let acquirer: DevAcquirer;
let server: TestServer;
let merchant: TestMerchant;
let noticeUrl: string;
const db = () => server.runtime.platform.db;

async function capturedSale(amount = 10000) {
  const tok = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
    headers: { 'x-api-public-key': merchant.publicKey },
    body: cardBody(cardEnding('0')),
  });
  expect(tok.status, tok.text).toBe(201);
  const sale = await call<SaleBody>('POST', `${server.url}/api/transactions`, {
    headers: merchant.keys,
    body: saleInput({ paymentMethod: 'CREDIT_CARD', card: { token: tok.body.token }, amount }),
  });
  expect(sale.body.status, sale.text).toBe('PAGO');
  const paymentId = acquirer.salesOf(sale.body.uuid)[0]!.Payment.PaymentId;
  return { ...sale.body, paymentId };
}

const disputesOf = (saleId: number) =>
  db().query<{
    id: string;
    uuid: string;
    kind: string;
    amount_cents: number;
    reason: string | null;
    source: string;
  }>('SELECT id, uuid, kind, amount_cents, reason, source FROM disputes WHERE sale_id = $1', [saleId]);
const statusOf = async (id: number) =>
  (await db().query<{ status: string }>('SELECT status FROM sales WHERE id = $1', [id]))[0]!.status;

function notice(body: unknown, secret: string | null = SECRET) {
  return call<{ received: boolean }>('POST', noticeUrl, {
    headers: secret === null ? {} : { 'x-notification-secret': secret },
    body,
  });
}

/** The notice is read back after the 200: waits until `check` holds. */
async function eventually(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Lets a notice that should open nothing finish (its read-back) before the test looks. */
const settle = () => new Promise((r) => setTimeout(r, 300));

beforeAll(async () => {
  acquirer = new DevAcquirer({ notificationSecret: SECRET });
  await acquirer.start();
  server = await startServer({
    workers: false,
    env: cieloEnv(acquirer, { CIELO_TIMEOUT_MS: '2000', CIELO_NOTIFICATION_SECRET: SECRET }),
  });
  noticeUrl = `${server.url}/api/providers/cielo/notifications`;
  acquirer.notificationUrl = noticeUrl;
  merchant = await disputeMerchant(server);
});
afterAll(async () => {
  await server?.close();
  await acquirer?.close();
});

describe("Cielo's chargeback notice (ChangeType 7), read back from the query API", () => {
  it('a chargeback at the acquirer: the sale becomes CHARGEBACK, one dispute of its amount and reason', async () => {
    const sale = await capturedSale(10000);
    const before = await balanceOf(server, merchant);
    const opened = await acquirer.chargeback({
      paymentId: sale.paymentId,
      amountCents: 6000,
      reasonCode: '4837',
      reasonMessage: 'No Cardholder Authorization',
    });
    expect(opened.notified).toBe(200);
    await eventually(async () => (await disputesOf(sale.id)).length > 0);
    const [row] = await disputesOf(sale.id);
    expect(row).toMatchObject({
      kind: 'chargeback',
      amount_cents: 6000,
      reason: '4837 No Cardholder Authorization',
      source: 'cielo-chargeback',
    });
    expect(await statusOf(sale.id)).toBe('CHARGEBACK');
    const after = await balanceOf(server, merchant);
    expect(after.available).toBe(before.available - 6000);
    const types = (await eventsOf(server, 'sale', sale.id)).map((e) => e.event_type);
    expect(types).toContain('sale.chargeback');
    const disputeEvents = await eventsOf(server, 'dispute', Number(row!.id));
    expect(disputeEvents.map((e) => e.event_type)).toEqual(['dispute.opened']);
    const view = await call<DisputeBody>('GET', `${server.url}/api/disputes/${row!.uuid}`, {
      headers: merchant.keys,
    });
    expect(view.body).toMatchObject({ kind: 'chargeback', status: 'needs_response', amountCents: 6000 });

    // the same notice again (Cielo repeats one it thinks unanswered): still one dispute, nothing moves twice
    expect((await notice({ PaymentId: sale.paymentId, ChangeType: 7 })).status).toBe(200);
    expect((await notice({ PaymentId: sale.paymentId, ChangeType: '7' })).status).toBe(200);
    await settle();
    expect(await disputesOf(sale.id)).toHaveLength(1);
    expect((await balanceOf(server, merchant)).available).toBe(after.available);
    expect((await verifyLedger(db())).problems).toEqual([]);
  });

  it('a forged notice (a payment Cielo reports no chargeback on) opens nothing', async () => {
    server.logs.expect('chargeback notice the acquirer does not confirm');
    const sale = await capturedSale();
    const before = await balanceOf(server, merchant);
    const res = await notice({ PaymentId: sale.paymentId, ChangeType: 7 });
    expect(res.status, res.text).toBe(200);
    await settle();
    expect(await disputesOf(sale.id)).toHaveLength(0);
    expect(await statusOf(sale.id)).toBe('PAGO');
    expect(await balanceOf(server, merchant)).toEqual(before);
  });

  it('an unknown PaymentId: 200, nothing opened', async () => {
    server.logs.expect('chargeback notice for a payment the gateway did not make');
    const count = async () =>
      Number((await db().query<{ n: string }>('SELECT count(*) AS n FROM disputes'))[0]!.n);
    const before = await count();
    const res = await notice({ PaymentId: randomUUID(), ChangeType: 7 });
    expect(res.status, res.text).toBe(200);
    await settle();
    expect(await count()).toBe(before);
  });

  it('other change types are answered 200 and read nothing; a bad secret or body is refused', async () => {
    const sale = await capturedSale();
    expect((await notice({ PaymentId: sale.paymentId, ChangeType: 1 })).status).toBe(200);
    const noSecret = await notice({ PaymentId: sale.paymentId, ChangeType: 7 }, null);
    expect(noSecret.status).toBe(401);
    const wrong = await notice({ PaymentId: sale.paymentId, ChangeType: 7 }, `${SECRET}x`);
    expect(wrong.status).toBe(401);
    expect((await notice({ ChangeType: 7 })).status).toBe(400);
    await settle();
    expect(await disputesOf(sale.id)).toHaveLength(0);
  });

  it('Cielo down when the notice comes: nothing opened yet, the read-back queued for the workers', async () => {
    server.logs.expect('chargeback notice not read back yet');
    const sale = await capturedSale();
    acquirer.fault({ kind: 'status', status: 503, match: `GET /1/sales/${sale.paymentId}` });
    await acquirer.chargeback({ paymentId: sale.paymentId, amountCents: 2500 });
    const queued = () =>
      db().query<{ data: { paymentId: string } }>(
        "SELECT data FROM pgboss.job WHERE name = 'disputes.card-notice' AND data->>'paymentId' = $1",
        [sale.paymentId],
      );
    await eventually(async () => (await queued()).length === 1);
    expect(await disputesOf(sale.id)).toHaveLength(0);
    // what the workers' handler does with the job, once Cielo answers again
    const source = cieloChargebackSource(db(), server.runtime.platform.config.cards.cielo!);
    const disputes = new Disputes(
      db(),
      server.runtime.platform.queue,
      { queue: server.runtime.platform.queue, key: server.runtime.platform.config.secretsKey },
      server.url,
    );
    const log = { warn: () => undefined };
    expect(await openNotifiedChargeback(disputes, source, sale.paymentId, log)).toBe('opened');
    expect(await openNotifiedChargeback(disputes, source, sale.paymentId, log)).toBe('known');
    expect(await disputesOf(sale.id)).toMatchObject([{ amount_cents: 2500 }]);
    expect(await statusOf(sale.id)).toBe('CHARGEBACK');
    await source.close();
  });

  it("the dev-acquirer's POST /_dev/chargebacks opens one and sends the notice", async () => {
    const sale = await capturedSale(5000);
    const res = await call<{ chargeback: { Amount: number; CaseNumber: string }; notified: number }>(
      'POST',
      `${acquirer.url}/_dev/chargebacks`,
      { body: { paymentId: sale.paymentId, reasonCode: '10.4', reasonMessage: 'Fraud' }, ca: acquirer.ca },
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ chargeback: { Amount: 5000 }, notified: 200 });
    await eventually(async () => (await statusOf(sale.id)) === 'CHARGEBACK');
    const [row] = await disputesOf(sale.id);
    expect(row).toMatchObject({ amount_cents: 5000, reason: '10.4 Fraud' });
  });
});
