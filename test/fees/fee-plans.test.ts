import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../../src/accounts/accounts.js';
import { recordPaidAmount } from '../../src/sales/paid-amount.js';
import type { SaleRow } from '../../src/sales/types.js';
import { sandboxSale } from '../sales/fixtures.js';
import { createMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { createOperator, type TestOperator } from '../support/operators.js';
import { startServer, type TestServer } from '../support/server.js';
import { cardSale, planBody, planFor } from './fixtures.js';

let server: TestServer;
let finance: TestOperator;
let risk: TestOperator;
const db = () => server.runtime.platform.db;
const unique = (name: string) => `${name} ${Math.random().toString(36).slice(2, 8)}`;

beforeAll(async () => {
  server = await startServer({ workers: false });
  finance = await createOperator(server, 'finance');
  risk = await createOperator(server, 'risk');
});
afterAll(() => server?.close());

async function saleRow(uuid: string): Promise<SaleRow> {
  const [row] = await db().query<SaleRow>('SELECT * FROM sales WHERE uuid = $1', [uuid]);
  return row!;
}

describe('fee plans in the console', () => {
  it('finance creates, lists and changes plans; the contract’s shape; each change audited before and after', async () => {
    const body = planBody(unique('Padrão'));
    const created = await call<Record<string, unknown>>('POST', `${server.url}/api/ops/fee-plans`, {
      headers: finance.ops,
      body,
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({ id: expect.any(Number), ...body });
    const list = await call<{ data: { id: number }[] }>('GET', `${server.url}/api/ops/fee-plans`, {
      headers: finance.ops,
    });
    expect(list.body.data.map((p) => p.id)).toContain(created.body.id);

    const patched = await call<Record<string, unknown>>(
      'PATCH',
      `${server.url}/api/ops/fee-plans/${created.body.id}`,
      { headers: finance.ops, body: { pixPercent: '1.5', creditPercent: { '7-12': '5.5' } } },
    );
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({
      pixPercent: '1.5',
      creditPercent: { '1': '3.49', '2-6': '4.29', '7-12': '5.5' },
    });
    const audit = await call<{ data: { action: string; before: unknown; after: unknown }[] }>(
      'GET',
      `${server.url}/api/ops/audit`,
      { headers: finance.ops },
    );
    const updated = audit.body.data.find((e) => e.action === 'fee_plan.updated');
    expect(updated?.before).toMatchObject({ pixPercent: '0.99' });
    expect(updated?.after).toMatchObject({ pixPercent: '1.5' });
    expect(audit.body.data.some((e) => e.action === 'fee_plan.created')).toBe(true);
  });

  it('refuses bad input in shape A and roles below finance', async () => {
    const bad = [
      { ...planBody(unique('x')), pixPercent: '3,99' },
      { ...planBody(unique('x')), pixPercent: '101' },
      { ...planBody(unique('x')), boletoFixedCents: -1 },
      { ...planBody(unique('x')), boletoFixedCents: 1.5 },
      { ...planBody(unique('x')), creditPercent: { '1': '3' } },
      { name: 'only a name' },
      'not an object',
      // shown to merchants: a name as any other printed to people
      planBody('Plano em https://promo.example.com'),
      planBody('Plano\nnovo'),
      planBody('   '),
    ];
    for (const body of bad) {
      const res = await call<{ success: boolean; error: { code: string } }>(
        'POST',
        `${server.url}/api/ops/fee-plans`,
        { headers: finance.ops, body },
      );
      expect(res.status, `${JSON.stringify(body)} → ${res.text}`).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    }
    const name = unique('Dup');
    await planFor(server, finance, null, planBody(name));
    const dup = await call('POST', `${server.url}/api/ops/fee-plans`, {
      headers: finance.ops,
      body: planBody(name),
    });
    expect(dup.status).toBe(409);
    const missing = await call('PATCH', `${server.url}/api/ops/fee-plans/999999`, {
      headers: finance.ops,
      body: { pixPercent: '1' },
    });
    expect(missing.status).toBe(404);
    const empty = await call('PATCH', `${server.url}/api/ops/fee-plans/1`, {
      headers: finance.ops,
      body: {},
    });
    expect(empty.status).toBe(400);
    const noPlan = await call('POST', `${server.url}/api/ops/accounts/1/fee-plan`, {
      headers: finance.ops,
      body: { planId: 999999 },
    });
    expect(noPlan.status).toBe(400);
    const byRisk = await call('POST', `${server.url}/api/ops/fee-plans`, {
      headers: risk.ops,
      body: planBody(unique('risk')),
    });
    expect(byRisk.status).toBe(403);
    const anonymous = await call('GET', `${server.url}/api/ops/fee-plans`);
    expect(anonymous.status).toBe(401);
  });
});

describe('putting an account on a plan', () => {
  it('is refused for a closed account (409), its plan unchanged', async () => {
    const admin = await createOperator(server, 'admin');
    const merchant = await createMerchant(server);
    const planId = await planFor(server, finance, merchant, planBody(unique('closed')));
    const other = await planFor(server, finance, null, planBody(unique('after close')));
    const closed = await call('POST', `${server.url}/api/ops/accounts/${merchant.accountId}/close`, {
      headers: admin.ops,
      body: { reason: 'encerrada a pedido' },
    });
    expect(closed.status, closed.text).toBe(200);
    const refused = await call('POST', `${server.url}/api/ops/accounts/${merchant.accountId}/fee-plan`, {
      headers: finance.ops,
      body: { planId: other },
    });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: 'INVALID_STATUS' } });
    expect(refused.text).toContain('closed');
    const [row] = await db().query<{ fee_plan_id: string }>(
      'SELECT fee_plan_id FROM accounts WHERE id = $1',
      [merchant.accountId],
    );
    expect(Number(row!.fee_plan_id)).toBe(planId);
  });
});

describe('a sale’s fees come from the plan in force when it was created', () => {
  it('prices every method by the plan, and a plan change never reaches a sale made before it', async () => {
    const m = await createMerchant(server);
    const planId = await planFor(server, finance, m, planBody(unique('Loja')));
    const pix = await sandboxSale(server, m, { amount: 10000 });
    expect(pix.systemFee).toBe(99 + 10); // 0.99 % + 10 cents
    const boleto = await sandboxSale(server, m, { amount: 10000, paymentMethod: 'BOLETO' });
    expect(boleto.systemFee).toBe(349);
    expect((await cardSale(server, m, 10000, 1)).systemFee).toBe(349);
    expect((await cardSale(server, m, 10000, 6)).systemFee).toBe(429);
    expect((await cardSale(server, m, 10000, 7)).systemFee).toBe(499);

    const changed = await call('PATCH', `${server.url}/api/ops/fee-plans/${planId}`, {
      headers: finance.ops,
      body: { pixPercent: '5', pixFixedCents: 0, boletoFixedCents: 500 },
    });
    expect(changed.status, changed.text).toBe(200);
    expect((await saleRow(pix.uuid)).system_fee).toBe(109);
    expect((await sandboxSale(server, m, { amount: 10000 })).systemFee).toBe(500);

    // a boleto paid with interest is priced on the terms it was created with, not the plan's new ones
    await recordPaidAmount(db(), await saleRow(boleto.uuid), 10300);
    const paid = await saleRow(boleto.uuid);
    expect(paid.system_fee).toBe(349);
    expect(paid.net_amount).toBe(10300 - 349);
    // and a PIX sale's percent too (a later amount, old terms)
    await recordPaidAmount(db(), await saleRow(pix.uuid), 20000);
    expect((await saleRow(pix.uuid)).system_fee).toBe(198 + 10);
  });

  it('the per-account flags of gateway accounts update are the account’s own plan: they take it off its plan', async () => {
    const m = await createMerchant(server);
    await planFor(server, finance, m, planBody(unique('Saída')));
    expect((await sandboxSale(server, m, { amount: 10000 })).systemFee).toBe(109);
    const row = await updateAccount(db(), m.accountId, { saleFeePercentE4: 20000, saleFeeFixed: 50 });
    expect(row.fee_plan_id).toBeNull();
    expect((await sandboxSale(server, m, { amount: 10000 })).systemFee).toBe(250);
    const fees = await call<Record<string, unknown>>('GET', `${server.url}/api/fees`, { headers: m.keys });
    expect(fees.body).toMatchObject({ id: null, source: 'account', pixPercent: '2', pixFixedCents: 50 });
  });

  it('cashouts pay the plan’s fixed fee', async () => {
    const m = await createMerchant(server);
    await planFor(server, finance, m, planBody(unique('Saque'), { cashoutFixedCents: 275 }));
    const quote = await call<{ fees: { fixed: string; variable: string } }>(
      'GET',
      `${server.url}/api/withdrawals/fee-preview?amount=150.00`,
      { headers: m.panel },
    );
    expect(quote.status, quote.text).toBe(200);
    expect(quote.body.fees).toMatchObject({ fixed: '2.75', variable: '0.00' });
  });
});

describe('GET /api/fees', () => {
  it('shows the merchant its plan by API key and from the panel; errors in each door’s shape', async () => {
    const m = await createMerchant(server);
    const own = await call<Record<string, unknown>>('GET', `${server.url}/api/fees`, { headers: m.keys });
    expect(own.status, own.text).toBe(200);
    expect(own.body).toMatchObject({ id: null, source: 'account', accountRates: expect.any(Object) });
    const body = planBody(unique('Visível'));
    const planId = await planFor(server, finance, m, body);
    for (const headers of [m.keys, m.panel]) {
      const res = await call<Record<string, unknown>>('GET', `${server.url}/api/fees`, { headers });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ id: planId, ...body, source: 'plan', accountRates: null });
    }
    const noKey = await call<Record<string, unknown>>('GET', `${server.url}/api/fees`);
    expect(noKey.status).toBe(401);
    expect(noKey.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    const badKey = await call<Record<string, unknown>>('GET', `${server.url}/api/fees`, {
      headers: { 'x-api-public-key': 'nope', 'x-api-private-key': 'nope' },
    });
    expect(badKey.status).toBe(401);
    expect(badKey.body).toMatchObject({ error: 'UNAUTHORIZED' });
    const badSession = await call<Record<string, unknown>>('GET', `${server.url}/api/fees`, {
      headers: { cookie: 'gw_session=nope' },
    });
    expect(badSession.status).toBe(401);
    expect(badSession.body).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
  });

  it('FEE_PLAN_DEFAULT puts new accounts on the named plan', async () => {
    const name = unique('Novas');
    await planFor(server, finance, null, planBody(name, { pixFixedCents: 77, pixPercent: '0' }));
    const { setDefaultFeePlan } = await import('../../src/accounts/fee-plans.js');
    const list = async () =>
      (
        await call<{ data: { id: number; name: string }[]; defaultPlanId: number | null }>(
          'GET',
          `${server.url}/api/ops/fee-plans`,
          { headers: finance.ops },
        )
      ).body;
    // the console's list says which plan an approval without one falls back to: none before
    expect((await list()).defaultPlanId).toBeNull();
    setDefaultFeePlan(name);
    try {
      const m = await createMerchant(server);
      expect((await sandboxSale(server, m, { amount: 10000 })).systemFee).toBe(77);
      const plans = await list();
      const planId = plans.data.find((p) => p.name === name)!.id;
      expect(plans.defaultPlanId).toBe(planId);
      // the default finds its plan by name: renaming it would leave new accounts on none, so it is refused
      const renamed = await call<{ error: { code: string; message: string } }>(
        'PATCH',
        `${server.url}/api/ops/fee-plans/${planId}`,
        { headers: finance.ops, body: { name: `${name} 2` } },
      );
      expect(renamed.status).toBe(409);
      expect(renamed.body.error.code).toBe('CONFLICT');
      expect(renamed.body.error.message).toContain('FEE_PLAN_DEFAULT');
      expect((await list()).defaultPlanId).toBe(planId);
      // its rates still change
      const repriced = await call('PATCH', `${server.url}/api/ops/fee-plans/${planId}`, {
        headers: finance.ops,
        body: { pixFixedCents: 78 },
      });
      expect(repriced.status, repriced.text).toBe(200);
    } finally {
      setDefaultFeePlan(null);
    }
  });
});
