import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../../src/accounts/accounts.js';
import { moveTo, sandboxSale } from '../sales/fixtures.js';
import { createMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { createOperator, type TestOperator } from '../support/operators.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let finance: TestOperator;
let risk: TestOperator;

beforeAll(async () => {
  server = await startServer();
  finance = await createOperator(server, 'finance');
  risk = await createOperator(server, 'risk');
});
afterAll(() => server?.close());

const today = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(new Date());

interface Report {
  rows: {
    day: string;
    paymentMethod: string;
    accountId?: number;
    salesCount: number;
    tpvCents: number;
    feeCents: number;
    takeRatePercent: string;
  }[];
  totals: { salesCount: number; tpvCents: number; feeCents: number; takeRatePercent: string };
}

describe('the daily report', () => {
  it('counts paid sales per day and method, and per account, as the sales table says; CSV too', async () => {
    const a = await createMerchant(server, 'Loja A');
    const b = await createMerchant(server, 'Loja B');
    await updateAccount(server.runtime.platform.db, a.accountId, { saleFeePercentE4: 20_000 }); // 2 %
    await updateAccount(server.runtime.platform.db, b.accountId, {
      saleFeePercentE4: 35_000,
      saleFeeFixed: 50,
    });
    for (const [m, amount, method] of [
      [a, 10_000, 'PIX'],
      [a, 25_000, 'PIX'],
      [a, 7_000, 'BOLETO'],
      [b, 40_000, 'PIX'],
    ] as const) {
      const sale = await sandboxSale(server, m, {
        amount,
        paymentMethod: method,
        items: [{ title: 'x', unitPrice: amount, quantity: 1, tangible: false }],
      });
      expect((await moveTo(server, m, sale.id, 'PAGO')).status).toBe(200);
    }
    // one left pending, one cancelled: neither counts
    await sandboxSale(server, a, {});
    const cancelled = await sandboxSale(server, b, {});
    await moveTo(server, b, cancelled.id, 'CANCELADO');

    const day = today();
    const res = await call<Report>('GET', `${server.url}/api/ops/reports/daily?from=${day}&to=${day}`, {
      headers: finance.ops,
    });
    expect(res.status).toBe(200);
    const [truth] = await server.runtime.platform.db.query<{ n: number; tpv: number; fee: number }>(
      `SELECT count(*)::int AS n, sum(COALESCE(paid_amount, amount))::int AS tpv, sum(system_fee)::int AS fee
         FROM sales WHERE completed_at IS NOT NULL`,
    );
    expect(res.body.totals).toMatchObject({
      salesCount: truth!.n,
      tpvCents: truth!.tpv,
      feeCents: truth!.fee,
    });
    expect(res.body.totals.salesCount).toBe(4);
    expect(res.body.rows.find((r) => r.paymentMethod === 'BOLETO')).toMatchObject({
      salesCount: 1,
      tpvCents: 7_000,
      feeCents: 140,
      takeRatePercent: '2.00',
    });

    const perAccount = await call<Report>(
      'GET',
      `${server.url}/api/ops/reports/daily?from=${day}&to=${day}&by=account`,
      { headers: finance.ops },
    );
    expect(perAccount.body.rows.filter((r) => r.accountId === b.accountId)).toEqual([
      expect.objectContaining({ paymentMethod: 'PIX', salesCount: 1, tpvCents: 40_000, feeCents: 1_450 }),
    ]);

    const csv = await fetch(`${server.url}/api/ops/reports/daily?from=${day}&to=${day}&format=csv`, {
      headers: finance.ops,
    });
    expect(csv.headers.get('content-type')).toMatch(/text\/csv/);
    const records = parse((await csv.text()).replace(/^\uFEFF/, ''), {
      columns: true,
      delimiter: ';',
    }) as Record<string, string>[];
    expect(records.map((r) => r.forma).sort()).toEqual(['BOLETO', 'PIX']);
    expect(records.reduce((t, r) => t + Number(r.tpv_centavos), 0)).toBe(truth!.tpv);
  });

  it("tells every fee earned, by source, as the ledger's revenue account has it: withdrawals' and refunds' too", async () => {
    const m = await createMerchant(server, 'Loja Receita');
    const db = server.runtime.platform.db;
    await updateAccount(db, m.accountId, { saleFeePercentE4: 20_000, cashoutFeeFixed: 75 });
    const sale = await sandboxSale(server, m, {
      amount: 50_000,
      items: [{ title: 'x', unitPrice: 50_000, quantity: 1, tangible: false }],
    });
    expect((await moveTo(server, m, sale.id, 'PAGO')).status).toBe(200);
    const refund = await call('POST', `${server.url}/api/transactions/${sale.id}/refund`, {
      headers: m.keys,
      body: { amountCents: 10_000 },
    });
    expect(refund.status, refund.text).toBe(202);
    const w = await call<{ id: number }>('POST', `${server.url}/api/public/cashout`, {
      headers: m.keys,
      body: { amount: 100, pixKey: '52998224725' },
    });
    expect(w.status, w.text).toBe(201);
    await expect
      .poll(
        async () =>
          (
            await call('POST', `${server.url}/api/sandbox/cashouts/${w.body.id}/result`, {
              headers: m.keys,
              body: { result: 'COMPLETED' },
            })
          ).status,
        { timeout: 20_000 },
      )
      .toBe(200);
    const day = today();
    const res = await call<Report & { revenue: Record<string, number> | null }>(
      'GET',
      `${server.url}/api/ops/reports/daily?from=${day}&to=${day}`,
      { headers: finance.ops },
    );
    expect(res.status, res.text).toBe(200);
    const [ledger] = await db.query<{ total: string }>(
      `SELECT COALESCE(sum(p.amount), 0) AS total FROM postings p
         JOIN ledger_accounts la ON la.id = p.ledger_account_id AND la.code = 'system:fees'`,
    );
    expect(res.body.revenue).toMatchObject({
      salesCents: res.body.totals.feeCents,
      totalCents: Number(ledger!.total),
    });
    expect(res.body.revenue!.withdrawalsCents).toBeGreaterThanOrEqual(75);
    expect(res.body.revenue!.refundsCents).toBeLessThan(0);
    const r = res.body.revenue!;
    expect(r.salesCents + r.withdrawalsCents + r.anticipationsCents + r.refundsCents).toBe(r.totalCents);
    // one account's report: its sales' rows, no platform revenue
    const one = await call<{ revenue: unknown }>(
      'GET',
      `${server.url}/api/ops/reports/daily?from=${day}&to=${day}&accountId=${m.accountId}`,
      { headers: finance.ops },
    );
    expect(one.status, one.text).toBe(200);
    expect(one.body.revenue).toBeNull();
  });

  it('is finance’s: risk gets 403; a bad period is 400', async () => {
    const day = today();
    expect(
      (await call('GET', `${server.url}/api/ops/reports/daily?from=${day}&to=${day}`, { headers: risk.ops }))
        .status,
    ).toBe(403);
    for (const q of [
      'from=2026-02-30&to=2026-03-01',
      'from=2026-03-02&to=2026-03-01',
      'from=2020-01-01&to=2026-01-01',
    ]) {
      expect(
        (await call('GET', `${server.url}/api/ops/reports/daily?${q}`, { headers: finance.ops })).status,
        q,
      ).toBe(400);
    }
  });
});
