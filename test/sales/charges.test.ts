import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBalance } from '../../src/ledger/ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { hasValidCrc } from '../../src/payment-standards/brcode.js';
import { cancelExpiredCharges } from '../../src/sales/charges.js';
import { openRefund, releaseForgottenRefunds } from '../../src/sales/refunds/refunds.js';
import { createCashout } from '../support/cashouts.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { eventsOf, moveTo, type SaleBody, saleInput } from './fixtures.js';

type Created = SaleBody & { pixQrCode: string };

let server: TestServer;
let merchant: TestMerchant;
let other: TestMerchant;

const db = () => server.runtime.platform.db;
const charge = (body: unknown, headers: Record<string, string> = {}, who = merchant) =>
  call<Created>('POST', `${server.url}/api/transactions`, { headers: { ...who.keys, ...headers }, body });
const refund = (id: string | number, who = merchant) =>
  call<SaleBody>('POST', `${server.url}/api/transactions/${id}/refund`, { headers: who.keys });

beforeAll(async () => {
  // workers off: the expiry watcher is driven by the test itself
  server = await startServer({ workers: false });
  merchant = await createMerchant(server);
  other = await createMerchant(server, 'Other Merchant');
});
afterAll(() => server?.close());

describe('POST /api/transactions', () => {
  it("keeps the store's metadata as given on the Sale, its webhook data and its event, and gives the charge an expiresAt", async () => {
    const metadata = { orderId: 'pedido-1001', 'store.channel': 'site_br', z: 'ç'.repeat(500) };
    const res = await charge(saleInput({ metadata }));
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ metadata });
    expect(Object.keys((res.body as unknown as { metadata: object }).metadata)).toEqual(
      Object.keys(metadata),
    );
    const expiresAt = (res.body as unknown as { expiresAt: string }).expiresAt;
    expect(expiresAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now());
    const lookup = await call<Record<string, unknown>>(
      'GET',
      `${server.url}/api/transactions/${res.body.id}`,
      {
        headers: merchant.keys,
      },
    );
    expect(lookup.body).toMatchObject({ metadata, expiresAt });
    const [pending] = await eventsOf(server, 'sale', res.body.id);
    expect(JSON.parse(pending!.webhook_body).metadata).toEqual(metadata);
    const events = await call<{ data: { data: { metadata: unknown } }[] }>(
      'GET',
      `${server.url}/api/events?type=sale.pending&limit=100`,
      { headers: merchant.keys },
    );
    expect(events.body.data.some((e) => JSON.stringify(e.data.metadata) === JSON.stringify(metadata))).toBe(
      true,
    );
    const plain = await charge(saleInput());
    expect(plain.body).toMatchObject({ metadata: {} });
  });

  it.each([
    ['21 keys', Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']))],
    ['a key with a space', { 'order id': '1' }],
    ['a key of 41 characters', { ['k'.repeat(41)]: '1' }],
    ['an empty key', { '': '1' }],
    ['a value of 501 characters', { note: 'x'.repeat(501) }],
    ['a number value', { orderId: 1001 }],
    ['an array', ['pedido-1001']],
    ['null', null],
  ])('refuses metadata with %s: 400 shape D, nothing stored', async (_, metadata) => {
    const before = await db().query<{ n: number }>(
      'SELECT count(*)::int AS n FROM sales WHERE account_id = $1',
      [merchant.accountId],
    );
    const res = await charge(saleInput({ metadata }));
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({
      error: 'VALIDATION_ERROR',
      message: expect.stringContaining('metadata'),
    });
    const after = await db().query<{ n: number }>(
      'SELECT count(*)::int AS n FROM sales WHERE account_id = $1',
      [merchant.accountId],
    );
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it('opens a PENDENTE PIX sale with a BR Code and an SVG QR code, notified as sale.pending', async () => {
    const res = await charge(saleInput({ amount: 2550 }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.status).toBe('PENDENTE');
    expect(res.body.paymentMethod).toBe('PIX');
    expect(res.body.amount).toBe(2550);
    expect(res.body.pixKey).toMatch(/^000201/);
    expect(res.body.pixKey).toContain('540525.50');
    expect(hasValidCrc(res.body.pixKey!)).toBe(true);
    // the static code's reference label (62-05) fits the BR Code manual's 25 characters
    const label = /62(\d{2})05(\d{2})([A-Za-z0-9]+)6304/.exec(res.body.pixKey!);
    expect(label?.[3]).toBe(res.body.externalTransactionId!.replace('_', ''));
    expect(Number(label?.[2])).toBeLessThanOrEqual(25);
    expect(Number(label?.[1])).toBe(Number(label?.[2]) + 4);
    expect(res.body.pixQrCode).toMatch(/^data:image\/svg\+xml;base64,/);
    const svg = Buffer.from(res.body.pixQrCode.split(',')[1]!, 'base64').toString('utf8');
    expect(svg).toContain('<svg');
    const lookup = await call<SaleBody>('GET', `${server.url}/api/transactions/${res.body.uuid}`, {
      headers: merchant.keys,
    });
    expect({ ...res.body, pixQrCode: undefined }).toEqual({ ...lookup.body, pixQrCode: undefined });
    expect((await eventsOf(server, 'sale', res.body.id)).map((e) => e.event_type)).toEqual(['sale.pending']);
  });

  it('answers shape D 400 for bad bodies and writes nothing', async () => {
    const before = await db().query<{ n: number }>('SELECT count(*)::int AS n FROM sales');
    for (const body of [
      saleInput({ paymentMethod: 'BOLETO' }),
      saleInput({ expiresIn: 59 }),
      saleInput({ expiresIn: 86401 }),
      saleInput({ amount: 0 }),
      saleInput({ customer: { name: 'x', email: 'nope', document: '123', phone: '1' } }),
    ]) {
      const res = await charge(body);
      expect(res.status, res.text).toBe(400);
      expect(Object.keys(res.body as object).sort()).toEqual(['error', 'message']);
    }
    const after = await db().query<{ n: number }>('SELECT count(*)::int AS n FROM sales');
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it('replays the same sale for a repeated Idempotency-Key, and refuses it with another body', async () => {
    const key = `k-${Date.now()}`;
    const a = await charge(saleInput(), { 'idempotency-key': key });
    const b = await charge(saleInput(), { 'idempotency-key': key });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(a.body.uuid).toBe(b.body.uuid);
    expect([a.headers['idempotent-replayed'], b.headers['idempotent-replayed']]).toEqual([undefined, 'true']);
    // repeats racing the first: each is the same sale or 409 IN_USE (shape D), and only one sale exists
    const raceKey = `race-${Date.now()}`;
    const raced = await Promise.all(
      Array.from({ length: 6 }, () => charge(saleInput(), { 'idempotency-key': raceKey })),
    );
    for (const r of raced) {
      if (r.status === 409)
        expect(r.body).toEqual({ message: expect.any(String), error: 'IDEMPOTENCY_KEY_IN_USE' });
      else expect(r.status, r.text).toBe(201);
    }
    const made = raced.filter((r) => r.status === 201);
    expect(made.length).toBeGreaterThan(0);
    expect(new Set(made.map((r) => r.body.uuid)).size).toBe(1);
    expect(made.filter((r) => r.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
    const reused = await charge(saleInput({ amount: 777 }), { 'idempotency-key': key });
    expect(reused.status).toBe(422);
    expect(reused.body).toEqual({ message: expect.any(String), error: 'IDEMPOTENCY_KEY_REUSED' }); // shape D
    // another account's same key is its own
    const theirs = await charge(saleInput(), { 'idempotency-key': key }, other);
    expect(theirs.status).toBe(201);
    expect(theirs.body.uuid).not.toBe(a.body.uuid);
  });

  it('turns an unpaid charge past its expiry into CANCELADO, notified as sale.canceled', async () => {
    const res = await charge(saleInput({ expiresIn: 60 }));
    const paid = await charge(saleInput({ expiresIn: 60 }));
    await moveTo(server, merchant, paid.body.id, 'PAGO');
    await db().query(`UPDATE sales SET charge_expires_at = now() - interval '1 second' WHERE id = ANY($1)`, [
      [res.body.id, paid.body.id],
    ]);
    expect(await cancelExpiredCharges(db(), server.runtime.platform.queue)).toBe(1);
    const [row] = await db().query<{ status: string }>('SELECT status FROM sales WHERE id = $1', [
      res.body.id,
    ]);
    expect(row!.status).toBe('CANCELADO');
    expect((await eventsOf(server, 'sale', res.body.id)).map((e) => e.event_type)).toEqual([
      'sale.pending',
      'sale.canceled',
    ]);
    const [kept] = await db().query<{ status: string }>('SELECT status FROM sales WHERE id = $1', [
      paid.body.id,
    ]);
    expect(kept!.status).toBe('PAGO');
    expect(await cancelExpiredCharges(db(), server.runtime.platform.queue)).toBe(0);
  });
});

describe('POST /api/transactions/{id}/refund', () => {
  it('refunds a PAGO sale to ESTORNADO through the ledger, notified as sale.refunded', async () => {
    const res = await charge(saleInput({ amount: 10000 }));
    await moveTo(server, merchant, res.body.id, 'PAGO');
    const paidBalance = await getBalance(db(), merchant.accountId);
    const out = await refund(res.body.uuid);
    expect(out.status, out.text).toBe(202);
    expect(out.body.status).toBe('ESTORNADO');
    const after = await getBalance(db(), merchant.accountId);
    expect(paidBalance.total - after.total).toBe(res.body.netAmount);
    const events = (await eventsOf(server, 'sale', res.body.id)).map((e) => e.event_type);
    expect(events).toEqual(['sale.pending', 'sale.paid', 'sale.refunded']);
    expect((await refund(res.body.uuid)).status).toBe(409);
  });

  it('refuses a refund whose money was already withdrawn: 422 INSUFFICIENT_BALANCE in shape D, nothing written', async () => {
    const m = await createMerchant(server, 'Withdrawn Merchant');
    const res = await charge(saleInput({ amount: 20000 }), {}, m);
    await moveTo(server, m, res.body.id, 'PAGO');
    const paid = await getBalance(db(), m.accountId);
    await createCashout(server.url, m, paid.available / 100); // all of it
    const before = await getBalance(db(), m.accountId);
    const refused = await refund(res.body.uuid, m);
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body).toEqual({
      message: expect.stringMatching(
        /^The platform's available balance lacks \d+ cents for this refund: it needs \d+ cents and has \d+$/,
      ),
      error: 'INSUFFICIENT_BALANCE',
    });
    expect(await getBalance(db(), m.accountId)).toEqual(before);
    const sale = await call<SaleBody>('GET', `${server.url}/api/transactions/${res.body.uuid}`, {
      headers: m.keys,
    });
    expect(sale.body.status).toBe('PAGO');
    expect((await verifyLedger(db())).ok).toBe(true);
  });

  it('a refund racing cashouts: the refunded money is never also withdrawn, available never below zero', async () => {
    const m = await createMerchant(server, 'Racing Merchant');
    const res = await charge(saleInput({ amount: 100000 }), {}, m);
    await moveTo(server, m, res.body.id, 'PAGO');
    const net = res.body.netAmount;
    const send = (amount: number) =>
      call('POST', `${server.url}/api/public/cashout`, {
        headers: m.keys,
        body: { amount, pixKey: '52998224725' },
      });
    const answers = await Promise.all([
      ...Array.from({ length: 12 }, () => send(100)),
      refund(res.body.uuid, m),
      ...Array.from({ length: 12 }, () => send(100)),
    ]);
    const refunded = answers[12]!.status === 202;
    const withdrawn = answers.filter((a, i) => i !== 12 && a.status === 201).length * 10000;
    const after = await getBalance(db(), m.accountId);
    expect(after.available).toBeGreaterThanOrEqual(0);
    if (refunded) {
      // the hold came first: the net went back to the payer and no cashout got any of it
      expect(withdrawn).toBe(0);
      expect(after).toMatchObject({ available: 0, blocked: 0 });
    } else {
      // a cashout came first: the refund was refused, the withdrawals hold what they took
      expect(answers[12]!.body).toMatchObject({ error: 'INSUFFICIENT_BALANCE' });
      expect(withdrawn).toBeGreaterThan(0);
      expect(after).toMatchObject({ available: net - withdrawn, blocked: withdrawn });
    }
    expect((await verifyLedger(db())).ok).toBe(true);
  });

  it('a hold left by a crash before the processor was asked is given back ten minutes on', async () => {
    const m = await createMerchant(server, 'Crashed Merchant');
    const res = await charge(saleInput({ amount: 30000 }), {}, m);
    await moveTo(server, m, res.body.id, 'PAGO');
    const paid = await getBalance(db(), m.accountId);
    const { refund: opened } = await openRefund(db(), res.body.id, null, null); // the first step, then the crash
    // all of it is being refunded: asked again, it is the same refund, held once
    expect((await openRefund(db(), res.body.id, null, null)).refund.id).toBe(opened.id);
    await expect(openRefund(db(), res.body.id, 1, null)).rejects.toMatchObject({ code: 'CONFLICT' });
    expect((await getBalance(db(), m.accountId)).available).toBe(paid.available - res.body.netAmount);
    expect(await releaseForgottenRefunds(db())).toBe(0); // it may still be on its way
    await db().query("UPDATE sale_refunds SET updated_at = now() - interval '11 minutes' WHERE id = $1", [
      opened.id,
    ]);
    expect(await releaseForgottenRefunds(db())).toBe(1);
    expect(await getBalance(db(), m.accountId)).toEqual(paid);
    const sale = await call<SaleBody>('GET', `${server.url}/api/transactions/${res.body.uuid}`, {
      headers: m.keys,
    });
    expect(sale.body.status).toBe('PAGO');
    expect((await refund(res.body.uuid, m)).status).toBe(202); // and it can be asked again
    expect((await verifyLedger(db())).ok).toBe(true);
  });

  it('refuses a sale not PAGO (409), another account’s (403) and an unknown one (404), in shape D', async () => {
    const res = await charge(saleInput());
    const pending = await refund(res.body.id);
    expect(pending.status).toBe(409);
    expect(pending.body).toEqual({
      message: 'a sale in status PENDENTE cannot be refunded',
      error: 'CONFLICT',
    });
    expect((await refund(res.body.id, other)).status).toBe(403);
    expect((await refund(99999999)).status).toBe(404);
    expect((await refund('abc')).status).toBe(400);
  });
});

describe('without a processor', () => {
  it('answers 503 PROCESSOR_UNAVAILABLE and writes nothing', async () => {
    const bare = await startServer({ workers: false, env: { PIX_PROCESSOR: 'none' } });
    try {
      const m = await createMerchant(bare);
      const res = await call('POST', `${bare.url}/api/transactions`, { headers: m.keys, body: saleInput() });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({
        message: 'No payment processor is configured to open PIX charges',
        error: 'PROCESSOR_UNAVAILABLE',
      });
      const rows = await bare.runtime.platform.db.query('SELECT 1 FROM sales');
      expect(rows).toHaveLength(0);
    } finally {
      await bare.close();
    }
  });
});
