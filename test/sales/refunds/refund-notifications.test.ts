/**
 * What each refund tells, on the PostgreSQL server and on the embedded PostgreSQL 18: every sale.refunded
 * delivery (to a real receiver), every event of the Events API and the refund route's answer carry the refund
 * the fact is about and the sale's refundedAmount after it, the running total in the order the refunds were
 * made, the last one included (the one that makes the sale ESTORNADO), however many refunds run at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../../sdk/src/index.js';
import { decide, openDispute } from '../../disputes/fixtures.js';
import { type EmbeddedServer, startEmbedded } from '../../support/embedded.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { fundMerchant } from '../../support/ledger.js';
import { type Receiver, startReceiver } from '../../support/receiver.js';
import { startServer, type TestServer } from '../../support/server.js';
import { waitUntil } from '../../support/wait.js';
import { type CreatedWebhook, createWebhook } from '../../support/webhooks.js';
import { moveTo, saleInput } from '../fixtures.js';

interface Refund {
  id: string;
  amountCents: number;
  status: string;
  reason: string | null;
  createdAt: string;
  completedAt: string | null;
}
interface RefundAnswer {
  uuid: string;
  status: string;
  refundedAmount: number;
  refund: Refund;
}
/** What a sale.refunded fact told: the sale's refundedAmount (text, as the body has it) and the refund. */
interface Told {
  uuid: string;
  status: string;
  refundedAmount: string;
  eventType: string;
  refund: Refund | null;
}

const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * The facts of one sale, in the order its refunds were made (each refundedAmount is larger than the one before):
 * each must be the total of its refund and those before it.
 */
function expectRunningTotals(told: Told[], amounts: number[]): void {
  const ordered = [...told].sort((a, b) => Number(a.refundedAmount) - Number(b.refundedAmount));
  let total = 0;
  for (const fact of ordered) {
    expect(fact.eventType).toBe('sale.refunded');
    expect(fact.refund).toMatchObject({
      status: 'succeeded',
      reason: null,
      createdAt: expect.stringMatching(iso),
    });
    expect(fact.refund!.completedAt).toMatch(iso);
    total += fact.refund!.amountCents;
    expect(Number(fact.refundedAmount), JSON.stringify(ordered)).toBe(total);
  }
  expect(ordered.map((f) => f.refund!.amountCents).sort((a, b) => a - b)).toEqual(
    [...amounts].sort((a, b) => a - b),
  );
  const paidInFull = total === 10000;
  expect(ordered.map((f) => f.status)).toEqual(
    ordered.map((_, i) => (paidInFull && i === ordered.length - 1 ? 'ESTORNADO' : 'PAGO')),
  );
}

describe.each([
  ['the PostgreSQL server', false],
  ['the embedded PostgreSQL 18', true],
])('refund facts on %s', (_, embedded) => {
  let pg: EmbeddedServer | undefined;
  let server: TestServer;
  let receiver: Receiver;
  let merchant: TestMerchant;
  let hook: CreatedWebhook;

  beforeAll(async () => {
    if (embedded) pg = await startEmbedded();
    server = await startServer(pg ? { databaseUrl: pg.url } : {});
    receiver = await startReceiver();
    merchant = await createMerchant(server);
    hook = await createWebhook(server, merchant, `${receiver.url}/refunds`, ['sale.refunded']);
    if (embedded) {
      const [v] = await server.runtime.platform.db.query<{ n: string }>(
        "SELECT current_setting('server_version_num') AS n",
      );
      expect(Math.floor(Number(v!.n) / 10000)).toBe(18);
    }
  }, 120_000);
  afterAll(async () => {
    await receiver?.close();
    await server?.close();
    await pg?.stop();
  });

  async function paidSale(): Promise<{ id: number; uuid: string }> {
    const res = await call<{ id: number; uuid: string }>('POST', `${server.url}/api/transactions`, {
      headers: merchant.keys,
      body: saleInput({ amount: 10000 }),
    });
    expect(res.status, res.text).toBe(201);
    expect((await moveTo(server, merchant, res.body.id, 'PAGO')).status).toBe(200);
    return res.body;
  }

  const refund = (uuid: string, amountCents: number, key: string) =>
    call<RefundAnswer>('POST', `${server.url}/api/transactions/${uuid}/refund`, {
      headers: { ...merchant.keys, 'idempotency-key': key },
      body: { amountCents },
    });

  /** The sale's sale.refunded deliveries (signatures verified), once each, when `count` have arrived. */
  async function deliveriesOf(uuid: string, count: number): Promise<Told[]> {
    const got = await waitUntil(
      () => {
        const byId = new Map<string, Told>();
        for (const r of receiver.received) {
          const verified = verifyWebhook({ body: r.body, headers: r.headers, secret: hook.secret });
          const body = verified.payload as Told;
          if (body.uuid === uuid) byId.set(verified.eventId, body);
        }
        return byId.size >= count ? [...byId.values()] : undefined;
      },
      30_000,
      () => `${count} sale.refunded deliveries of ${uuid}`,
    );
    expect(got).toHaveLength(count);
    return got;
  }

  /** The sale's sale.refunded events of the Events API (their data is the delivered body). */
  async function eventsOf(uuid: string): Promise<Told[]> {
    const res = await call<{ data: { type: string; data: Told }[] }>(
      'GET',
      `${server.url}/api/events?type=sale.refunded&limit=100`,
      { headers: merchant.keys },
    );
    expect(res.status, res.text).toBe(200);
    return res.body.data.filter((e) => e.data.uuid === uuid).map((e) => e.data);
  }

  it('refunds of 2000, 3000 and 5000 one after the other are told as 2000, 5000 and 10000', async () => {
    const sale = await paidSale();
    const answers = [];
    for (const [i, amount] of [2000, 3000, 5000].entries()) {
      const res = await refund(sale.uuid, amount, `seq-${sale.id}-${i}`);
      expect(res.status, res.text).toBe(202);
      answers.push(res.body);
    }
    expect(answers.map((a) => [a.refundedAmount, a.refund.amountCents, a.status])).toEqual([
      [2000, 2000, 'PAGO'],
      [5000, 3000, 'PAGO'],
      [10000, 5000, 'ESTORNADO'],
    ]);
    const delivered = await deliveriesOf(sale.uuid, 3);
    const events = await eventsOf(sale.uuid);
    for (const told of [delivered, events]) {
      expect(told.map((t) => t.refundedAmount).sort((a, b) => Number(a) - Number(b))).toEqual([
        '2000',
        '5000',
        '10000',
      ]);
      expectRunningTotals(told, [2000, 3000, 5000]);
      expect(new Set(told.map((t) => t.refund!.id))).toEqual(new Set(answers.map((a) => a.refund.id)));
    }
  });

  it('refunded in full by a MED lost: all that was paid, its refund the devolução (who paid it, no fee back), listed with the others; the sandbox’s report of a refund in full carries the refund it made', async () => {
    const lost = await paidSale();
    expect((await refund(lost.uuid, 2000, `med-${lost.id}`)).body.refundedAmount).toBe(2000);
    const med = await openDispute(server, merchant, lost.uuid, { kind: 'med' });
    expect(med.status, med.text).toBe(201);
    expect((await decide(server, merchant, med.body.id, 'lost')).status).toBe(200);
    const told = await deliveriesOf(lost.uuid, 2);
    const last = told.find((t) => t.status === 'ESTORNADO')!;
    expect(last).toMatchObject({
      refundedAmount: '10000',
      eventType: 'sale.refunded',
      refund: {
        amountCents: 8000,
        status: 'succeeded',
        reason: `The MED ${med.body.id} was lost: returned to the payer`,
        // the platform paid all of it: its share of the net and the fee on it (a lost dispute gives none back)
        allocation: [
          { party: 'platform', amountCents: 8000, fromReceivableCents: 0, fromAvailableCents: 8000 },
        ],
        feeReturnedCents: 0,
      },
    });
    expect(last.refund!.completedAt).toMatch(iso);
    expect((await eventsOf(lost.uuid)).find((t) => t.status === 'ESTORNADO')).toEqual(last);
    // the sale's refunds add up to all it refunded: the one asked for, and the devolução of the MED
    const listed = await call<Refund[]>('GET', `${server.url}/api/transactions/${lost.uuid}/refunds`, {
      headers: merchant.keys,
    });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.map((r) => r.amountCents).sort()).toEqual([2000, 8000]);
    expect(listed.body.find((r) => r.amountCents === 8000)).toEqual(last.refund);
    // the sandbox's move to ESTORNADO is the processor's report of a refund in full: a refund of all that was left
    const moved = await paidSale();
    expect((await moveTo(server, merchant, moved.id, 'ESTORNADO')).status).toBe(200);
    const [reported] = await deliveriesOf(moved.uuid, 1);
    expect(reported).toMatchObject({
      status: 'ESTORNADO',
      refundedAmount: '10000',
      eventType: 'sale.refunded',
      refund: { amountCents: 10000, status: 'succeeded' },
    });
    expect((await eventsOf(moved.uuid)).find((t) => t.status === 'ESTORNADO')).toEqual(reported);
    // the MED took its fee out of available too: the refunds that follow need the balance back
    await fundMerchant(server.runtime.platform.db, merchant.accountId, 10_000);
  });

  it.each([
    ['refunds in full', [2000, 3000, 5000]],
    ['four equal refunds in full', [2500, 2500, 2500, 2500]],
    ['six refunds that leave some', [1000, 1500, 500, 2000, 700, 300]],
  ])(
    'parallel partial refunds (%s): every delivery, event and answer tells its refund and the total after it (5 rounds)',
    async (_, amounts) => {
      for (let round = 0; round < 5; round++) {
        const sale = await paidSale();
        const answers = await Promise.all(
          amounts.map((amount, i) => refund(sale.uuid, amount, `par-${sale.id}-${i}`)),
        );
        for (const [i, a] of answers.entries()) {
          expect(a.status, a.text).toBe(202);
          expect(a.body.refund).toMatchObject({ amountCents: amounts[i], status: 'succeeded' });
        }
        // each answer is the sale as its own refund left it: the running totals again, in the answers
        expectRunningTotals(
          answers.map((a) => ({
            uuid: a.body.uuid,
            status: a.body.status,
            refundedAmount: String(a.body.refundedAmount),
            eventType: 'sale.refunded',
            refund: a.body.refund,
          })),
          amounts,
        );
        const delivered = await deliveriesOf(sale.uuid, amounts.length);
        const events = await eventsOf(sale.uuid);
        expect(events).toHaveLength(amounts.length);
        for (const told of [delivered, events]) {
          expectRunningTotals(told, amounts);
          expect(new Set(told.map((t) => t.refund!.id))).toEqual(
            new Set(answers.map((a) => a.body.refund.id)),
          );
        }
        // the answer and the fact of each refund tell the same total
        const factOf = new Map(delivered.map((t) => [t.refund!.id, t.refundedAmount]));
        for (const a of answers) expect(factOf.get(a.body.refund.id)).toBe(String(a.body.refundedAmount));
      }
    },
  );
});
