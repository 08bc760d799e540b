import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf } from '../sales/fixtures.js';
import { call } from '../support/http.js';
import { createOperator, type TestOperator } from '../support/operators.js';
import { startServer, type TestServer } from '../support/server.js';
import { anticipatingMerchant, buckets, cardSale, expectLedgerOk, plusDays, revenue } from './fixtures.js';

let server: TestServer;
let finance: TestOperator;
const db = () => server.runtime.platform.db;

interface View {
  id: string;
  status: string;
  grossCents: number;
  feeCents: number;
  netCents: number;
  receivables: { date: string; amountCents: number }[];
  reason: string | null;
}

beforeAll(async () => {
  server = await startServer({
    workers: false,
    env: { CARD_SETTLEMENT_DAYS: '30', ANTICIPATION_AUTO_APPROVE: 'on' },
  });
  finance = await createOperator(server, 'finance');
});
afterAll(() => server?.close());

describe('anticipation, approved automatically', () => {
  it('simulates, then pays in one ledger entry: receivable out, net in available, fee to revenue; idempotent', async () => {
    const m = await anticipatingMerchant(server, finance);
    await cardSale(server, m, 30000, 3); // 10000 due in 30, 60 and 90 days
    expect(await buckets(db(), m.accountId)).toMatchObject({ available: 0, receivable: 30000 });

    const sim = await call<Omit<View, 'id' | 'status'>>('POST', `${server.url}/api/anticipations/simulate`, {
      headers: m.keys,
      body: { amountCents: 15000 },
    });
    expect(sim.status, sim.text).toBe(200);
    // the earliest installments whose sum reaches 15000; 3 % a month pro rata per day: 300 + 600
    expect(sim.body).toEqual({
      grossCents: 20000,
      feeCents: 900,
      netCents: 19100,
      receivables: [
        { date: plusDays(30), amountCents: 10000 },
        { date: plusDays(60), amountCents: 10000 },
      ],
    });
    const upTo = await call<{ grossCents: number; feeCents: number }>(
      'POST',
      `${server.url}/api/anticipations/simulate`,
      { headers: m.panel, body: { upTo: plusDays(90) } },
    );
    expect(upTo.body).toMatchObject({ grossCents: 30000, feeCents: 300 + 600 + 900 });
    expect(await buckets(db(), m.accountId)).toMatchObject({ available: 0, receivable: 30000 });

    const revenueBefore = await revenue(db());
    const headers = { ...m.keys, 'idempotency-key': 'antecipa-1' };
    const created = await call<View>('POST', `${server.url}/api/anticipations`, {
      headers,
      body: { amountCents: 15000 },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ status: 'paid', grossCents: 20000, feeCents: 900, netCents: 19100 });
    expect(await buckets(db(), m.accountId)).toMatchObject({ available: 19100, receivable: 10000 });
    expect((await revenue(db())) - revenueBefore).toBe(900);
    await expectLedgerOk(db());

    const again = await call<View>('POST', `${server.url}/api/anticipations`, {
      headers,
      body: { amountCents: 15000 },
    });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(created.body.id);
    const reused = await call<Record<string, unknown>>('POST', `${server.url}/api/anticipations`, {
      headers,
      body: { amountCents: 5000 },
    });
    expect(reused.status).toBe(422);
    expect(reused.body).toMatchObject({ error: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await buckets(db(), m.accountId)).toMatchObject({ available: 19100, receivable: 10000 });

    const [anticipation] = await db().query<{ id: string }>('SELECT id FROM anticipations WHERE uuid = $1', [
      created.body.id,
    ]);
    const events = await eventsOf(server, 'anticipation', Number(anticipation!.id));
    expect(events.map((e) => e.event_type)).toEqual(['anticipation.paid']);
    expect(JSON.parse(events[0]!.webhook_body)).toMatchObject({
      id: created.body.id,
      status: 'paid',
      netCents: 19100,
      type: 'ANTICIPATION',
      eventType: 'anticipation.paid',
    });

    // the receivables list shows the anticipated installments as settled
    const agenda = await call<{ data: { date: string; installments: { settled: boolean }[] }[] }>(
      'GET',
      `${server.url}/api/receivables`,
      { headers: m.keys },
    );
    expect(agenda.body.data.map((d) => d.installments.every((i) => i.settled))).toEqual([true, true, false]);

    const list = await call<{ data: View[]; nextCursor: string | null }>(
      'GET',
      `${server.url}/api/anticipations?limit=1`,
      { headers: m.keys },
    );
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.map((a) => a.id)).toEqual([created.body.id]);
    expect(list.body.nextCursor).toBeNull();
  });

  it('refuses when there is not enough, and installments of refunded or disputed sales', async () => {
    const m = await anticipatingMerchant(server, finance);
    const refunded = await cardSale(server, m, 10000, 1);
    const disputed = await cardSale(server, m, 20000, 1);
    const kept = await cardSale(server, m, 40000, 1);
    const refund = await call('POST', `${server.url}/api/transactions/${refunded.id}/refund`, {
      headers: m.keys,
      body: { amountCents: 1000 },
    });
    expect(refund.status, refund.text).toBe(202);
    const dispute = await call('POST', `${server.url}/api/sandbox/sales/${disputed.id}/dispute`, {
      headers: m.keys,
      body: { kind: 'chargeback' },
    });
    expect(dispute.status, dispute.text).toBe(201);

    const sim = await call<{ grossCents: number }>('POST', `${server.url}/api/anticipations/simulate`, {
      headers: m.keys,
      body: { upTo: plusDays(365) },
    });
    expect(sim.body.grossCents).toBe(40000);
    const tooMuch = await call<Record<string, unknown>>('POST', `${server.url}/api/anticipations`, {
      headers: m.keys,
      body: { amountCents: 40001 },
    });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body).toMatchObject({ error: 'INSUFFICIENT_BALANCE' });
    // it says how much can be, and why not all that is scheduled
    expect(String(tooMuch.body.message)).toMatch(
      /^Not enough card receivables to anticipate: at most 40000 cents can be anticipated now of the \d+ cents scheduled \(installments of a sale refunded, being refunded or disputed cannot be\)/,
    );
    expect(kept.status).toBe('PAGO');
    await expectLedgerOk(db());
  });

  it('two anticipations of the same installments at once: one is paid, the others refused, nothing twice', async () => {
    for (let round = 0; round < 3; round++) {
      const m = await anticipatingMerchant(server, finance);
      await cardSale(server, m, 30000, 3);
      const tries = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          call<View & { error?: string }>('POST', `${server.url}/api/anticipations`, {
            headers: { ...m.keys, 'idempotency-key': `race-${round}-${i}` },
            body: { upTo: plusDays(100) },
          }),
        ),
      );
      const paid = tries.filter((t) => t.status === 201);
      expect(paid.map((t) => t.body.status)).toEqual(['paid']);
      for (const t of tries.filter((t) => t.status !== 201)) {
        expect([409, 422], t.text).toContain(t.status);
        expect(['CONFLICT', 'INSUFFICIENT_BALANCE']).toContain(t.body.error);
      }
      expect(await buckets(db(), m.accountId)).toMatchObject({
        available: 30000 - paid[0]!.body.feeCents,
        receivable: 0,
      });
    }
    await expectLedgerOk(db());
  });

  it('the same Idempotency-Key sent several times at once makes one anticipation', async () => {
    const m = await anticipatingMerchant(server, finance);
    await cardSale(server, m, 30000, 3);
    const headers = { ...m.keys, 'idempotency-key': 'same-key-at-once' };
    const tries = await Promise.all(
      Array.from({ length: 5 }, () =>
        call<View>('POST', `${server.url}/api/anticipations`, { headers, body: { upTo: plusDays(100) } }),
      ),
    );
    expect(tries.map((t) => t.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(tries.map((t) => t.body.id)).size).toBe(1);
    expect(tries.filter((t) => t.headers['idempotent-replayed'] === 'true')).toHaveLength(4);
    const [row] = await db().query<{ n: number }>(
      'SELECT count(*)::int AS n FROM anticipations WHERE account_id = $1',
      [m.accountId],
    );
    expect(row!.n).toBe(1);
    await expectLedgerOk(db());
  });

  it('bad input is a 400 in each door’s shape; no credentials 401', async () => {
    const m = await anticipatingMerchant(server, finance);
    const bodies = [
      {},
      { amountCents: 0 },
      { amountCents: -5 },
      { amountCents: 1.5 },
      { amountCents: '100' },
      { upTo: '2026-02-30' },
      { upTo: 'amanhã' },
      { upTo: '9999-12-31' },
      { amountCents: 100, upTo: plusDays(10) },
      { other: 1 },
      [],
    ];
    for (const path of ['/api/anticipations/simulate', '/api/anticipations']) {
      for (const body of bodies) {
        const byKey = await call<Record<string, unknown>>('POST', `${server.url}${path}`, {
          headers: m.keys,
          body,
        });
        expect(byKey.status, `${path} ${JSON.stringify(body)} ${byKey.text}`).toBe(400);
        expect(byKey.body).toMatchObject({ error: 'VALIDATION_ERROR', message: expect.any(String) });
        const byPanel = await call<Record<string, unknown>>('POST', `${server.url}${path}`, {
          headers: m.panel,
          body,
        });
        expect(byPanel.status, byPanel.text).toBe(400);
        expect(byPanel.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
        // a well-formed date out of range says what range
        if (JSON.stringify(body).includes('9999')) {
          expect(byKey.body.message).toBe('upTo must be a date YYYY-MM-DD that exists, years 1900 to 9998');
        }
      }
    }
    const badKey = await call('POST', `${server.url}/api/anticipations`, {
      headers: { ...m.keys, 'idempotency-key': 'x'.repeat(300) },
      body: { amountCents: 100 },
    });
    expect(badKey.status).toBe(400);
    const anonymous = await call<Record<string, unknown>>('POST', `${server.url}/api/anticipations`, {
      body: { amountCents: 100 },
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ error: 'UNAUTHORIZED' });
    const noCsrf = await call('POST', `${server.url}/api/anticipations`, {
      headers: { cookie: m.panel.cookie! },
      body: { amountCents: 100 },
    });
    expect(noCsrf.status).toBe(403);
    const badCursor = await call('GET', `${server.url}/api/anticipations?cursor=zzz`, { headers: m.keys });
    expect(badCursor.status).toBe(400);
  });
});
