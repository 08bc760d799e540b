import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Disputes } from '../../src/disputes/disputes.js';
import { EFI_MED } from '../../src/disputes/source.js';
import { postEntry } from '../../src/ledger/ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { eventsOf, moveTo } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { balanceOf, decide, disputeMerchant, openDispute, paidSale } from './fixtures.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ workers: false });
});
afterAll(() => server?.close());

const db = () => server.runtime.platform.db;

async function disputeEvents(id: string) {
  const [row] = await db().query<{ id: number }>('SELECT id FROM disputes WHERE uuid = $1', [id]);
  return (await eventsOf(server, 'dispute', row!.id)).map((e) => ({
    type: e.event_type,
    body: JSON.parse(e.webhook_body) as Record<string, unknown>,
  }));
}

async function saleEvents(saleId: number) {
  return (await eventsOf(server, 'sale', saleId)).map((e) => e.event_type);
}

function refundSale(m: TestMerchant, uuid: string, amountCents?: number) {
  return call<{ status: string; refundedAmount: number }>(
    'POST',
    `${server.url}/api/transactions/${uuid}/refund`,
    {
      headers: m.keys,
      ...(amountCents === undefined ? {} : { body: { amountCents } }),
    },
  );
}

async function expectLedgerClean() {
  const report = await verifyLedger(db());
  expect(report.problems).toEqual([]);
}

describe('opening a dispute', () => {
  it('MED: the sale becomes MED, the whole amount leaves available, sale.chargeback and dispute.opened', async () => {
    const m = await disputeMerchant(server);
    const sale = await paidSale(server, m, 10000);
    expect(sale.netAmount).toBe(9700);
    expect(await balanceOf(server, m)).toMatchObject({ available: 9700, blocked: 0 });

    const res = await openDispute(server, m, sale.uuid, { kind: 'med', reason: 'Pagador relata golpe' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      saleId: sale.uuid,
      kind: 'med',
      status: 'needs_response',
      amountCents: 10000,
      reason: 'Pagador relata golpe',
      respondBy: expect.any(String),
      evidence: [],
      responseText: null,
      createdAt: expect.any(String),
      closedAt: null,
    });
    const days = (Date.parse(res.body.respondBy) - Date.parse(res.body.createdAt)) / 86_400_000;
    expect(days).toBe(7);
    // the disputed amount (the sale's, fee included) is out of available: the merchant owes the fee too
    expect(await balanceOf(server, m)).toMatchObject({ available: -300, blocked: 10000 });
    expect(await saleEvents(sale.id)).toEqual(['sale.pending', 'sale.paid', 'sale.chargeback']);
    const events = await disputeEvents(res.body.id);
    expect(events.map((e) => e.type)).toEqual(['dispute.opened']);
    expect(events[0]!.body).toEqual({ ...res.body, type: 'DISPUTE', eventType: 'dispute.opened' });
    const lookup = await call<{ status: string }>('GET', `${server.url}/api/transactions/${sale.uuid}`, {
      headers: m.keys,
    });
    expect(lookup.body.status).toBe('MED');
    await expectLedgerClean();
  });

  it('a partial amount holds that amount only; a chargeback needs a card sale, a MED a Pix one', async () => {
    const m = await disputeMerchant(server);
    const pix = await paidSale(server, m, 10000);
    const card = await paidSale(server, m, 20000, 'CREDIT_CARD');
    expect(await balanceOf(server, m)).toMatchObject({ available: 9700 + 19400, blocked: 0 });

    expect((await openDispute(server, m, pix.uuid, { kind: 'chargeback' })).status).toBe(400);
    expect((await openDispute(server, m, card.uuid, { kind: 'med' })).status).toBe(400);
    const tooMuch = await openDispute(server, m, pix.uuid, { kind: 'med', amountCents: 10001 });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body).toEqual({ error: 'VALIDATION_ERROR', message: expect.any(String) });

    const partial = await openDispute(server, m, card.uuid, { kind: 'chargeback', amountCents: 5000 });
    expect(partial.status, partial.text).toBe(201);
    expect(partial.body).toMatchObject({ kind: 'chargeback', amountCents: 5000, reason: null });
    expect(await balanceOf(server, m)).toMatchObject({ available: 9700 + 19400 - 5000, blocked: 5000 });
    await expectLedgerClean();
  });

  it('a partly refunded sale: a dispute claims at most what is left after refunds (a notice is capped to it)', async () => {
    const m = await disputeMerchant(server);
    const sale = await paidSale(server, m, 10000);
    const refund = await call<{ refundedAmount: number; status: string }>(
      'POST',
      `${server.url}/api/transactions/${sale.uuid}/refund`,
      { headers: m.keys, body: { amountCents: 4000 } },
    );
    expect(refund.status, refund.text).toBe(202);
    const before = await balanceOf(server, m);
    const tooMuch = await openDispute(server, m, sale.uuid, { kind: 'med', amountCents: 10000 });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body).toMatchObject({ message: expect.stringContaining('6000') });
    expect(await balanceOf(server, m)).toEqual(before);
    const res = await openDispute(server, m, sale.uuid, { kind: 'med', reason: 'golpe' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.amountCents).toBe(6000);
    // lost: the merchant loses what was left of the sale, never more than the payer paid in all
    const lost = await decide(server, m, res.body.id, 'lost');
    expect(lost.status, lost.text).toBe(200);
    const after = await balanceOf(server, m);
    expect(before.available + before.blocked - (after.available + after.blocked)).toBeLessThanOrEqual(6000);
    await expectLedgerClean();
  });

  it('a notice for the whole amount of a partly refunded sale opens a dispute of what is left', async () => {
    const m = await disputeMerchant(server);
    const sale = await paidSale(server, m, 10000);
    const refund = await call('POST', `${server.url}/api/transactions/${sale.uuid}/refund`, {
      headers: m.keys,
      body: { amountCents: 2500 },
    });
    expect(refund.status, refund.text).toBe(202);
    const { platform } = server.runtime;
    const disputes = new Disputes(
      db(),
      platform.queue,
      { queue: platform.queue, key: platform.config.secretsKey },
      platform.config.publicUrl,
    );
    const opened = await disputes.open({
      accountId: null,
      sale: { kind: 'uuid', uuid: sale.uuid },
      kind: 'med',
      amountCents: 10000,
      source: EFI_MED,
      externalId: `notice-${sale.uuid}`,
    });
    expect(Number(opened.dispute.amount_cents)).toBe(7500);
    await expectLedgerClean();
  });

  it('only a PAGO sale of the caller: another account → 404, an open dispute → 409, nothing written', async () => {
    const m = await disputeMerchant(server);
    const other = await createMerchant(server);
    const sale = await paidSale(server, m, 10000);
    const foreign = await openDispute(server, other, sale.uuid, { kind: 'med' });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ error: 'NOT_FOUND', message: expect.any(String) });
    expect(
      (await openDispute(server, m, '00000000-0000-4000-8000-000000000000', { kind: 'med' })).status,
    ).toBe(404);
    const first = await openDispute(server, m, sale.id, { kind: 'med' });
    expect(first.status).toBe(201);
    const again = await openDispute(server, m, sale.uuid, { kind: 'med' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: 'CONFLICT', message: expect.any(String) });
    const [{ count }] = (await db().query<{ count: number }>(
      'SELECT count(*)::int AS count FROM disputes WHERE sale_id = $1',
      [sale.id],
    )) as [{ count: number }];
    expect(count).toBe(1);
    expect(await balanceOf(server, m)).toMatchObject({ available: -300, blocked: 10000 });
  });
});

describe('the outcome', () => {
  it('won: the amount is back in available, the sale PAGO, dispute.won; a closed dispute → 409 DISPUTE_CLOSED', async () => {
    const m = await disputeMerchant(server);
    const sale = await paidSale(server, m, 10000);
    const opened = (await openDispute(server, m, sale.uuid, { kind: 'med' })).body;
    const won = await decide(server, m, opened.id, 'won');
    expect(won.status, won.text).toBe(200);
    expect(won.body).toMatchObject({ id: opened.id, status: 'won', closedAt: expect.any(String) });
    expect(await balanceOf(server, m)).toMatchObject({ available: 9700, blocked: 0 });
    expect(await saleEvents(sale.id)).toEqual(['sale.pending', 'sale.paid', 'sale.chargeback', 'sale.paid']);
    expect((await disputeEvents(opened.id)).map((e) => e.type)).toEqual(['dispute.opened', 'dispute.won']);

    const late = await decide(server, m, opened.id, 'lost');
    expect(late.status).toBe(409);
    expect(late.body).toEqual({ error: 'DISPUTE_CLOSED', message: expect.any(String) });
    expect(await balanceOf(server, m)).toMatchObject({ available: 9700, blocked: 0 });
    await expectLedgerClean();
  });

  it('a sale under an open dispute leaves it by the dispute’s outcome only: a status report is 409, no money moves', async () => {
    const m = await disputeMerchant(server);
    const sale = await paidSale(server, m, 8000);
    const opened = (await openDispute(server, m, sale.uuid, { kind: 'med', amountCents: 1000 })).body;
    const held = await balanceOf(server, m);
    expect(held).toMatchObject({ blocked: 1000 });
    // the processor's status route (the sandbox's, the same code as a PSP's callback) would move the sale's
    // whole net and leave the dispute's own share behind: blocked below zero, available inflated
    for (const status of ['PAGO', 'ESTORNADO']) {
      const moved = await moveTo(server, m, sale.uuid, status);
      expect(moved.status, moved.text).toBe(409);
      expect(moved.text).toMatch(/open dispute/);
      expect(await balanceOf(server, m)).toEqual(held);
    }
    // the dispute decides it
    const won = await decide(server, m, opened.id, 'won');
    expect(won.status, won.text).toBe(200);
    expect(await balanceOf(server, m)).toMatchObject({ available: sale.netAmount, blocked: 0 });
    await expectLedgerClean();
  });

  it('MED lost: the devolução, sale ESTORNADO with sale.refunded, dispute.lost; the amount stays out', async () => {
    const m = await disputeMerchant(server);
    const sale = await paidSale(server, m, 10000);
    const opened = (await openDispute(server, m, sale.uuid, { kind: 'med' })).body;
    const lost = await decide(server, m, opened.id, 'lost');
    expect(lost.body).toMatchObject({ status: 'lost', closedAt: expect.any(String) });
    expect(await balanceOf(server, m)).toMatchObject({ available: -300, blocked: 0 });
    expect(await saleEvents(sale.id)).toEqual([
      'sale.pending',
      'sale.paid',
      'sale.chargeback',
      'sale.refunded',
    ]);
    expect((await disputeEvents(opened.id)).map((e) => e.type)).toEqual(['dispute.opened', 'dispute.lost']);
    await expectLedgerClean();
  });

  it('chargeback lost: the sale stays CHARGEBACK, the amount goes to the acquirer, the reserve settles', async () => {
    const m = await disputeMerchant(server, { reserve: 100000 }); // 10% reserve held in blocked
    const sale = await paidSale(server, m, 20000, 'CREDIT_CARD');
    // net 19400: a reserve of 2000 (10% of the amount) in blocked, 17400 in available
    expect(await balanceOf(server, m)).toMatchObject({ available: 17400, blocked: 2000 });
    const opened = (await openDispute(server, m, sale.uuid, { kind: 'chargeback' })).body;
    // the sale's whole net and the reserve it held, and the fee on the disputed amount
    expect(await balanceOf(server, m)).toMatchObject({ available: -2600, blocked: 22000 });
    const lost = await decide(server, m, opened.id, 'lost');
    expect(lost.body.status).toBe('lost');
    // 20000 gone for good, the fee included; the reserve is back
    expect(await balanceOf(server, m)).toMatchObject({ available: -600, blocked: 0 });
    const lookup = await call<{ status: string }>('GET', `${server.url}/api/transactions/${sale.uuid}`, {
      headers: m.keys,
    });
    expect(lookup.body.status).toBe('CHARGEBACK');
    expect(await saleEvents(sale.id)).toEqual(['sale.paid', 'sale.chargeback']);
    await expectLedgerClean();
  });

  it('a chargeback lost in part: the sale is PAGO again with that part refunded, the reserve settles, the rest can be refunded', async () => {
    const m = await disputeMerchant(server, { reserve: 100000 });
    const sale = await paidSale(server, m, 20000, 'CREDIT_CARD');
    const opened = (await openDispute(server, m, sale.uuid, { kind: 'chargeback', amountCents: 5000 })).body;
    expect(await balanceOf(server, m)).toMatchObject({ available: 12400, blocked: 7000 });
    const lost = await decide(server, m, opened.id, 'lost');
    expect(lost.body.status).toBe('lost');
    // 5000 gone for good; the reserve is back with the rest
    expect(await balanceOf(server, m)).toMatchObject({ available: 14400, blocked: 0 });
    const lookup = await call<{ status: string; refundedAmount: number }>(
      'GET',
      `${server.url}/api/transactions/${sale.uuid}`,
      { headers: m.keys },
    );
    expect(lookup.body).toMatchObject({ status: 'PAGO', refundedAmount: 5000 });
    expect(await saleEvents(sale.id)).toEqual(['sale.paid', 'sale.chargeback', 'sale.refunded']);
    await expectLedgerClean();
    // the rest of it (15000, whose share of the net is 14550) is the merchant's to refund; the fee on the part
    // lost (150) is the merchant's, so the balance must cover 150 more than the sale left in it
    const short = await refundSale(m, sale.uuid);
    expect(short.status, short.text).toBe(422);
    await paidSale(server, m, 1000); // 970: 870 available, its reserve of 100 blocked
    const rest = await refundSale(m, sale.uuid);
    expect(rest.status, rest.text).toBe(202);
    expect(rest.body).toMatchObject({ status: 'ESTORNADO', refundedAmount: 20000 });
    expect(await balanceOf(server, m)).toMatchObject({ available: 14400 + 870 - 14550, blocked: 100 });
    await expectLedgerClean();
  });

  it('a MED lost in part: the devolução of that part, the sale PAGO again with it refunded (sale.refunded); the rest is refundable', async () => {
    const m = await disputeMerchant(server);
    const sale = await paidSale(server, m, 10000);
    const opened = (await openDispute(server, m, sale.uuid, { kind: 'med', amountCents: 4000 })).body;
    expect(await balanceOf(server, m)).toMatchObject({ available: 5700, blocked: 4000 });
    const lost = await decide(server, m, opened.id, 'lost');
    expect(lost.body).toMatchObject({ status: 'lost', closedAt: expect.any(String) });
    // 4000 went back to the payer, all of it the merchant's (the fee on it is not given back)
    expect(await balanceOf(server, m)).toMatchObject({ available: 5700, blocked: 0 });
    const lookup = await call<{ status: string; refundedAmount: number }>(
      'GET',
      `${server.url}/api/transactions/${sale.uuid}`,
      { headers: m.keys },
    );
    expect(lookup.body).toMatchObject({ status: 'PAGO', refundedAmount: 4000 });
    const events = await eventsOf(server, 'sale', sale.id);
    expect(events.map((e) => e.event_type)).toEqual([
      'sale.pending',
      'sale.paid',
      'sale.chargeback',
      'sale.refunded',
    ]);
    // its refund is the devolução of the part: the merchant paid all of it, 3880 of the net and 120 of fee
    expect(JSON.parse(events[3]!.webhook_body)).toMatchObject({
      status: 'PAGO',
      refundedAmount: '4000',
      refund: {
        amountCents: 4000,
        status: 'succeeded',
        reason: `The MED ${opened.id} was lost: returned to the payer`,
        allocation: [
          { party: 'platform', amountCents: 4000, fromReceivableCents: 0, fromAvailableCents: 4000 },
        ],
        feeReturnedCents: 0,
      },
    });
    const refunds = await call<{ amountCents: number; reason: string | null }[]>(
      'GET',
      `${server.url}/api/transactions/${sale.uuid}/refunds`,
      { headers: m.keys },
    );
    expect(refunds.body.map((r) => r.amountCents)).toEqual([4000]);
    await expectLedgerClean();

    // a second MED can take at most what is left; a refund of more than what is left is refused
    const tooMuch = await openDispute(server, m, sale.uuid, { kind: 'med', amountCents: 6001 });
    expect(tooMuch.status).toBe(400);
    const over = await refundSale(m, sale.uuid, 6001);
    expect(over.status).toBe(422);
    // the rest: 6000, whose share of the net is 5820 (9700 less the 3880 the part lost took); the fee on the part
    // lost (120) is what the merchant still owes, the fee on the rest is given back
    await paidSale(server, m, 1000); // 970 to cover it
    const rest = await refundSale(m, sale.uuid, 6000);
    expect(rest.status, rest.text).toBe(202);
    expect(rest.body).toMatchObject({ status: 'ESTORNADO', refundedAmount: 10000 });
    expect(await balanceOf(server, m)).toMatchObject({ available: 5700 + 970 - 5820, blocked: 0 });
    await expectLedgerClean();
  });

  it('another account cannot decide a dispute (404); an id that is no uuid is 404 too', async () => {
    const m = await disputeMerchant(server);
    const other = await createMerchant(server);
    const sale = await paidSale(server, m, 10000);
    const opened = (await openDispute(server, m, sale.uuid, { kind: 'med' })).body;
    const foreign = await decide(server, other, opened.id, 'won');
    expect(foreign.status).toBe(404);
    // an API-key route of disputes: shape D
    expect(foreign.body).toEqual({ message: expect.any(String), error: 'NOT_FOUND' });
    expect((await decide(server, m, '42', 'won')).status).toBe(404);
    expect((await decide(server, m, opened.id, 'maybe')).status).toBe(400);
    expect(await balanceOf(server, m)).toMatchObject({ available: -300, blocked: 10000 });
  });
});

describe('a negative available balance', () => {
  it('refuses cashouts (422 shape C INSUFFICIENT_BALANCE) until later credits cover it', async () => {
    const m = await disputeMerchant(server);
    const cashout = (reais: number) =>
      call('POST', `${server.url}/api/public/cashout`, {
        headers: m.keys,
        body: { amount: reais, pixKey: '52998224725' },
      });
    const sale = await paidSale(server, m, 20000);
    const all = await cashout(194);
    expect(all.status, all.text).toBe(201);
    await openDispute(server, m, sale.uuid, { kind: 'med' });
    expect((await balanceOf(server, m)).available).toBe(-20000);
    const refused = await cashout(100);
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ message: expect.any(String), errorType: 'INSUFFICIENT_BALANCE' });
    await expectLedgerClean();

    await paidSale(server, m, 20000);
    expect((await balanceOf(server, m)).available).toBe(-600);
    expect((await cashout(100)).status).toBe(422);
    await paidSale(server, m, 20000);
    expect((await balanceOf(server, m)).available).toBe(18800);
    const ok = await cashout(100);
    expect(ok.status, ok.text).toBe(201);
    await expectLedgerClean();
  });

  it('ledger verify reports an available balance taken below zero by anything but a dispute', async () => {
    const m = await disputeMerchant(server);
    await paidSale(server, m, 1000);
    await db().tx((tx) =>
      postEntry(tx, {
        kind: 'test.debt',
        refType: 'test',
        refId: 0,
        postings: [
          { target: { accountId: m.accountId, bucket: 'available' }, amount: -5000 },
          { target: { system: 'processor' }, amount: 5000 },
        ],
      }),
    );
    const report = await verifyLedger(db());
    expect(report.problems).toContainEqual({
      kind: 'negative_available',
      account: `merchant:${m.accountId}:available`,
      actual: 970 - 5000,
      expected: 0,
    });
    // leave the shared ledger clean for the other tests
    await db().tx((tx) =>
      postEntry(tx, {
        kind: 'test.debt_repaid',
        refType: 'test',
        refId: 0,
        postings: [
          { target: { accountId: m.accountId, bucket: 'available' }, amount: 5000 },
          { target: { system: 'processor' }, amount: -5000 },
        ],
      }),
    );
  });
});
