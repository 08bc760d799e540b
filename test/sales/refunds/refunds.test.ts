import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBalance } from '../../../src/ledger/ledger.js';
import { verifyLedger } from '../../../src/ledger/verify.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { startServer, type TestServer } from '../../support/server.js';
import { eventsOf, moveTo, type SaleBody, saleInput } from '../fixtures.js';

type Refunded = SaleBody & { refundedAmount: number };

let server: TestServer;
let merchant: TestMerchant;

const db = () => server.runtime.platform.db;

async function paidSale(amount = 10000, who = merchant): Promise<SaleBody> {
  const res = await call<SaleBody>('POST', `${server.url}/api/transactions`, {
    headers: who.keys,
    body: saleInput({ amount }),
  });
  expect(res.status, res.text).toBe(201);
  await moveTo(server, who, res.body.id, 'PAGO');
  return res.body;
}

const refund = (sale: SaleBody, body?: unknown, key?: string, who = merchant) =>
  call<Refunded>('POST', `${server.url}/api/transactions/${sale.uuid}/refund`, {
    headers: { ...who.keys, ...(key ? { 'idempotency-key': key } : {}) },
    ...(body === undefined ? {} : { body }),
  });

const refundsOf = (saleId: number) =>
  db().query<{ amount: number; net: number; status: string }>(
    'SELECT amount, net, status FROM sale_refunds WHERE sale_id = $1 ORDER BY id',
    [saleId],
  );

beforeAll(async () => {
  server = await startServer({ workers: false });
  merchant = await createMerchant(server);
});
afterAll(() => server?.close());

describe('partial refunds', () => {
  it('several refunds up to what was paid: PAGO with refundedAmount until the last, one sale.refunded each', async () => {
    const sale = await paidSale(10000);
    const paid = await getBalance(db(), merchant.accountId);
    const first = await refund(sale, { amountCents: 3000 });
    expect(first.status, first.text).toBe(202);
    expect(first.body).toMatchObject({ status: 'PAGO', refundedAmount: 3000 });
    const second = await refund(sale, { amountCents: 2000 });
    expect(second.body).toMatchObject({ status: 'PAGO', refundedAmount: 5000 });
    const shares = [Math.floor((sale.netAmount * 3000) / 10000), Math.floor((sale.netAmount * 2000) / 10000)];
    expect(await getBalance(db(), merchant.accountId)).toMatchObject({
      available: paid.available - shares[0]! - shares[1]!,
      blocked: paid.blocked,
    });
    const events = await eventsOf(server, 'sale', sale.id);
    const refunded = events.filter((e) => e.event_type === 'sale.refunded');
    expect(refunded.map((e) => JSON.parse(e.webhook_body))).toMatchObject([
      { status: 'PAGO', refundedAmount: '3000' },
      { status: 'PAGO', refundedAmount: '5000' },
    ]);
    // the rest, with no amount: the sale is refunded in full, its whole net gone
    const last = await refund(sale);
    expect(last.body).toMatchObject({ status: 'ESTORNADO', refundedAmount: 10000 });
    expect(await getBalance(db(), merchant.accountId)).toMatchObject({
      available: paid.available - sale.netAmount,
      blocked: paid.blocked,
    });
    expect((await eventsOf(server, 'sale', sale.id)).map((e) => e.event_type)).toEqual([
      'sale.pending',
      'sale.paid',
      'sale.refunded',
      'sale.refunded',
      'sale.refunded',
    ]);
    expect((await refundsOf(sale.id)).map((r) => r.net).reduce((a, b) => a + b, 0)).toBe(sale.netAmount);
    const again = await refund(sale, { amountCents: 1 });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      message: 'a sale in status ESTORNADO cannot be refunded',
      error: 'CONFLICT',
    });
    expect((await verifyLedger(db())).ok).toBe(true);
  });

  it('more than what is left → 422 MAXIMUM_VALUE in shape D; a bad amount → 400; nothing written', async () => {
    const sale = await paidSale(5000);
    expect((await refund(sale, { amountCents: 4000 })).status).toBe(202);
    const before = await getBalance(db(), merchant.accountId);
    const over = await refund(sale, { amountCents: 1001 });
    expect(over.status).toBe(422);
    expect(over.body).toEqual({
      message: 'At most 1000 cents of this sale are left to refund',
      error: 'MAXIMUM_VALUE',
    });
    for (const body of [{ amountCents: 0 }, { amountCents: 10.5 }, { amountCents: '100' }, { amount: 100 }]) {
      const bad = await refund(sale, body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body).toMatchObject({ error: 'VALIDATION_ERROR' });
    }
    expect(await getBalance(db(), merchant.accountId)).toEqual(before);
    expect(await refundsOf(sale.id)).toHaveLength(1);
    const sale2 = await call<Refunded>('GET', `${server.url}/api/transactions/${sale.uuid}`, {
      headers: merchant.keys,
    });
    expect(sale2.body).toMatchObject({ status: 'PAGO', refundedAmount: 4000 });
  });

  it('an Idempotency-Key answers the same refund again, and refuses another request', async () => {
    const sale = await paidSale(8000);
    const first = await refund(sale, { amountCents: 1000 }, 'refund-key-1');
    expect(first.status).toBe(202);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const replay = await refund(sale, { amountCents: 1000 }, 'refund-key-1');
    expect(replay.status).toBe(202);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toMatchObject({ refundedAmount: 1000 });
    const reused = await refund(sale, { amountCents: 2000 }, 'refund-key-1');
    expect(reused.status).toBe(422);
    expect(reused.body).toEqual({
      message: 'This Idempotency-Key was already used with a different request body',
      error: 'IDEMPOTENCY_KEY_REUSED',
    });
    expect(await refundsOf(sale.id)).toHaveLength(1);
    // the same key on another sale is another request too
    const other = await paidSale(8000);
    expect((await refund(other, { amountCents: 1000 }, 'refund-key-1')).status).toBe(422);
  });

  it('one Idempotency-Key sent at once on refunds of six sales: one refund, the others 422, never a 500', async () => {
    const sales = await Promise.all(Array.from({ length: 6 }, () => paidSale(10000)));
    const answers = await Promise.all(sales.map((s) => refund(s, { amountCents: 1000 }, 'shared-at-once')));
    expect(answers.map((a) => a.status).sort()).toEqual([202, 422, 422, 422, 422, 422]);
    for (const a of answers.filter((x) => x.status === 422)) {
      expect(a.body).toMatchObject({ error: 'IDEMPOTENCY_KEY_REUSED' });
    }
    const made = await Promise.all(sales.map((s) => refundsOf(s.id)));
    expect(made.flat()).toHaveLength(1);
  });

  it('concurrent partial refunds never add up to more than was paid (20 rounds)', async () => {
    for (let round = 0; round < 20; round++) {
      const sale = await paidSale(10000);
      const before = await getBalance(db(), merchant.accountId);
      const answers = await Promise.all([
        ...Array.from({ length: 8 }, (_, i) => refund(sale, { amountCents: 1500 }, `race-${round}-${i}`)),
        refund(sale, { amountCents: 1500 }, `race-${round}-0`), // a repeat of one of them
        refund(sale, { amountCents: 4000 }),
      ]);
      const made = await refundsOf(sale.id);
      const total = made.reduce((a, r) => a + r.amount, 0);
      expect(total).toBeLessThanOrEqual(10000);
      expect(made.every((r) => r.status === 'DONE')).toBe(true);
      for (const a of answers) expect([202, 409, 422], a.text).toContain(a.status);
      const now = await call<Refunded>('GET', `${server.url}/api/transactions/${sale.uuid}`, {
        headers: merchant.keys,
      });
      expect(now.body.refundedAmount).toBe(total);
      expect(now.body.status).toBe(total === 10000 ? 'ESTORNADO' : 'PAGO');
      const net = made.reduce((a, r) => a + r.net, 0);
      const after = await getBalance(db(), merchant.accountId);
      expect(before.available - after.available).toBe(net);
    }
    expect((await verifyLedger(db())).ok).toBe(true);
  });

  it('a refund the held reserve covers leaves available as it was', async () => {
    const m = await createMerchant(server, 'Reserve Merchant');
    await db().query('UPDATE accounts SET reserve_percent_e4 = 100000 WHERE id = $1', [m.accountId]); // 10%
    const sale = await paidSale(10000, m);
    expect(sale.reserveAmount).toBeGreaterThan(0);
    const paid = await getBalance(db(), m.accountId);
    const small = Math.floor((sale.reserveAmount * 10000) / sale.netAmount) - 1;
    expect((await refund(sale, { amountCents: small }, undefined, m)).status).toBe(202);
    const after = await getBalance(db(), m.accountId);
    expect(after.available).toBe(paid.available);
    expect(after.blocked).toBeLessThan(paid.blocked);
    expect((await refund(sale, undefined, undefined, m)).body).toMatchObject({ status: 'ESTORNADO' });
    expect(await getBalance(db(), m.accountId)).toMatchObject({
      available: paid.available - (sale.netAmount - sale.reserveAmount),
      blocked: 0,
    });
  });
});

describe("the panel's door: POST /api/sales/{id}/refund (a session never opens /api/transactions/*)", () => {
  it('refunds by the session with its CSRF token, errors in shape A; the API path refuses the session (401) and writes nothing', async () => {
    const sale = await paidSale(10000);
    const byApiPath = await call('POST', `${server.url}/api/transactions/${sale.uuid}/refund`, {
      headers: merchant.panel,
      body: { amountCents: 100 },
    });
    expect(byApiPath.status).toBe(401);
    expect(byApiPath.body).toEqual({ message: expect.any(String), error: 'UNAUTHORIZED' });
    expect(await refundsOf(sale.id)).toEqual([]);

    const noCsrf = await call('POST', `${server.url}/api/sales/${sale.uuid}/refund`, {
      headers: { cookie: merchant.cookie },
      body: { amountCents: 100 },
    });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body).toMatchObject({ success: false, error: { code: 'FORBIDDEN' } });
    const tooMuch = await call('POST', `${server.url}/api/sales/${sale.uuid}/refund`, {
      headers: merchant.panel,
      body: { amountCents: 10001 },
    });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body).toMatchObject({ success: false, error: { code: 'MAXIMUM_VALUE' } });
    expect(await refundsOf(sale.id)).toEqual([]);

    const made = await call<Refunded>('POST', `${server.url}/api/sales/${sale.uuid}/refund`, {
      headers: merchant.panel,
      body: { amountCents: 2500 },
    });
    expect(made.status, made.text).toBe(202);
    expect(made.body).toMatchObject({ status: 'PAGO', refundedAmount: 2500 });
    // another account's panel finds no such sale
    const stranger = await createMerchant(server, 'Outra loja');
    const hidden = await call('POST', `${server.url}/api/sales/${sale.uuid}/refund`, {
      headers: stranger.panel,
      body: { amountCents: 100 },
    });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    // keys do not open the panel's door
    const byKey = await call('POST', `${server.url}/api/sales/${sale.uuid}/refund`, {
      headers: merchant.keys,
      body: { amountCents: 100 },
    });
    expect(byKey.status).toBe(401);
    expect((await refundsOf(sale.id)).map((r) => r.amount)).toEqual([2500]);
  });
});
