import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf } from '../sales/fixtures.js';
import { call } from '../support/http.js';
import { createOperator, type TestOperator } from '../support/operators.js';
import { startServer, type TestServer } from '../support/server.js';
import { anticipatingMerchant, buckets, cardSale, expectLedgerOk, plusDays } from './fixtures.js';

let server: TestServer;
let finance: TestOperator;
let support: TestOperator;
const db = () => server.runtime.platform.db;

interface View {
  id: string;
  status: string;
  grossCents: number;
  feeCents: number;
  netCents: number;
  reason: string | null;
  receivables: { date: string; amountCents: number }[];
}

beforeAll(async () => {
  // ANTICIPATION_AUTO_APPROVE is off by default outside development
  server = await startServer({ workers: false, env: { CARD_SETTLEMENT_DAYS: '30' } });
  finance = await createOperator(server, 'finance');
  support = await createOperator(server, 'support');
});
afterAll(() => server?.close());

const decide = (o: TestOperator, id: string, decision: 'approve' | 'reject', body: unknown = {}) =>
  call<View & { error?: { code: string } }>('POST', `${server.url}/api/ops/anticipations/${id}/${decision}`, {
    headers: o.ops,
    body,
  });

async function eventTypes(uuid: string): Promise<string[]> {
  const [row] = await db().query<{ id: string }>('SELECT id FROM anticipations WHERE uuid = $1', [uuid]);
  return (await eventsOf(server, 'anticipation', Number(row!.id))).map((e) => e.event_type);
}

describe('anticipation decided by a finance operator', () => {
  it('waits as requested, its installments held; approved, it is paid; audited', async () => {
    const m = await anticipatingMerchant(server, finance);
    await cardSale(server, m, 20000, 2);
    const requested = await call<View>('POST', `${server.url}/api/anticipations`, {
      headers: m.panel,
      body: { upTo: plusDays(30) },
    });
    expect(requested.status, requested.text).toBe(201);
    expect(requested.body).toMatchObject({ status: 'requested', grossCents: 10000, feeCents: 300 });
    expect(await buckets(db(), m.accountId)).toMatchObject({ available: 0, receivable: 20000 });
    // held: a second request cannot take the same installment
    const second = await call('POST', `${server.url}/api/anticipations/simulate`, {
      headers: m.keys,
      body: { upTo: plusDays(30) },
    });
    expect(second.status).toBe(422);

    const queue = await call<{ data: View[] }>(
      'GET',
      `${server.url}/api/ops/anticipations?status=requested`,
      {
        headers: support.ops,
      },
    );
    expect(queue.body.data.map((a) => a.id)).toContain(requested.body.id);
    // whose it is, as the console's other lists
    expect(queue.body.data.find((a) => a.id === requested.body.id)).toMatchObject({
      accountId: m.accountId,
      accountName: expect.any(String),
    });
    expect((await decide(support, requested.body.id, 'approve')).status).toBe(403);

    const approved = await decide(finance, requested.body.id, 'approve');
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body).toMatchObject({ status: 'paid', netCents: 9700 });
    expect(await buckets(db(), m.accountId)).toMatchObject({ available: 9700, receivable: 10000 });
    expect(await eventTypes(requested.body.id)).toEqual(['anticipation.paid']);
    const twice = await decide(finance, requested.body.id, 'approve');
    expect(twice.status).toBe(409);
    expect(twice.body).toMatchObject({ success: false, error: { code: 'INVALID_STATUS' } });

    const audit = await call<{ data: { action: string; before: unknown; after: unknown }[] }>(
      'GET',
      `${server.url}/api/ops/audit`,
      { headers: finance.ops },
    );
    const entry = audit.body.data.find((e) => e.action === 'anticipation.approved');
    expect(entry).toMatchObject({ before: { status: 'requested' }, after: { status: 'paid' } });
    // the support operator's refused attempt names the anticipation and whose it is
    const denied = await call<{ data: { action: string; target: string; accountId: number | null }[] }>(
      'GET',
      `${server.url}/api/ops/audit?accountId=${m.accountId}`,
      { headers: finance.ops },
    );
    expect(denied.body.data.find((e) => e.action === 'denied')).toMatchObject({
      target: `POST /api/ops/anticipations/${requested.body.id}/approve`,
      accountId: m.accountId,
    });
    await expectLedgerOk(db());
  });

  it('is refused when its receivables are no longer there: the sale refunded while it waited', async () => {
    const m = await anticipatingMerchant(server, finance);
    const sale = await cardSale(server, m, 10000, 1);
    const requested = await call<View>('POST', `${server.url}/api/anticipations`, {
      headers: m.keys,
      body: { amountCents: 10000 },
    });
    expect(requested.body.status).toBe('requested');
    const refund = await call<{ refund: { allocation: { fromReceivableCents: number }[] } }>(
      'POST',
      `${server.url}/api/transactions/${sale.id}/refund`,
      { headers: m.keys, body: { amountCents: 500 } },
    );
    expect(refund.status, refund.text).toBe(202);
    // the refund came out of the sale's installments (the anticipation had not been decided)
    const fromInstallments = refund.body.refund.allocation[0]!.fromReceivableCents;
    expect(fromInstallments).toBeGreaterThan(0);
    const approved = await decide(finance, requested.body.id, 'approve');
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body).toMatchObject({ status: 'rejected', reason: 'receivables_unavailable' });
    expect(await eventTypes(requested.body.id)).toEqual(['anticipation.rejected']);
    expect((await buckets(db(), m.accountId)).receivable).toBe(10000 - fromInstallments);
    await expectLedgerOk(db());
  });

  it('rejected by an operator: its installments are free again', async () => {
    const m = await anticipatingMerchant(server, finance);
    await cardSale(server, m, 10000, 1);
    const requested = await call<View>('POST', `${server.url}/api/anticipations`, {
      headers: m.keys,
      body: { amountCents: 10000 },
    });
    const rejected = await decide(finance, requested.body.id, 'reject', { reason: 'limite do mês' });
    expect(rejected.status, rejected.text).toBe(200);
    expect(rejected.body).toMatchObject({ status: 'rejected', reason: 'limite do mês' });
    expect(await eventTypes(requested.body.id)).toEqual(['anticipation.rejected']);
    // it still tells what it asked for, by every door, as its event does
    expect(requested.body.receivables).toEqual([{ date: expect.any(String), amountCents: 10000 }]);
    expect(rejected.body.receivables).toEqual(requested.body.receivables);
    const list = await call<{ data: View[] }>('GET', `${server.url}/api/anticipations`, { headers: m.keys });
    expect(list.body.data.find((a) => a.id === requested.body.id)?.receivables).toEqual(
      requested.body.receivables,
    );
    const [event] = await db().query<{ webhook_body: string }>(
      `SELECT webhook_body FROM notification_events WHERE subject_type = 'anticipation' AND event_type = 'anticipation.rejected'
        AND webhook_body::jsonb->>'id' = $1`,
      [requested.body.id],
    );
    expect(JSON.parse(event!.webhook_body).receivables).toEqual(requested.body.receivables);
    const again = await call('POST', `${server.url}/api/anticipations/simulate`, {
      headers: m.keys,
      body: { amountCents: 10000 },
    });
    expect(again.status).toBe(200);
    const missing = await decide(finance, '00000000-0000-4000-8000-000000000000', 'approve');
    expect(missing.status).toBe(404);
    const badId = await decide(finance, 'nope', 'approve');
    expect(badId.status).toBe(400);
  });
});
