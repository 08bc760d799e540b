/**
 * What the console and the merchant are told: the console's lists name each account (not only its id), and the
 * merchant's session reads the reason an operator gave for a suspension and for holding its withdrawals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_AUDIT_ACTIONS } from '../../src/operators/audit-actions.js';
import { createCashout } from '../support/cashouts.js';
import { createMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { fundMerchant } from '../support/ledger.js';
import { createOperator, type TestOperator } from '../support/operators.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let risk: TestOperator;
let admin: TestOperator;

beforeAll(async () => {
  server = await startServer({ env: { SIGNUP: 'on' } });
  risk = await createOperator(server, 'risk');
  admin = await createOperator(server, 'admin');
});
afterAll(async () => {
  await server?.close();
});

const ops = (o: TestOperator, path: string, body: unknown = {}) =>
  call<Record<string, unknown>>('POST', `${server.url}${path}`, { headers: o.ops, body });
const read = <T>(o: TestOperator, path: string) => call<T>('GET', `${server.url}${path}`, { headers: o.ops });

interface Standing {
  status: string;
  statusReason: string | null;
  payoutHold: boolean;
  payoutHoldReason: string | null;
}

describe("the reasons an operator gives, as the merchant's session reads them", () => {
  it('a payout hold and a suspension carry their reasons to GET /api/onboarding, and lose them when lifted', async () => {
    const m = await createMerchant(server, 'Loja das Razões');
    const standing = async () =>
      (await call<Standing>('GET', `${server.url}/api/onboarding`, { headers: m.panel })).body;
    expect(await standing()).toMatchObject({
      status: 'active',
      statusReason: null,
      payoutHold: false,
      payoutHoldReason: null,
    });

    expect(
      (await ops(risk, `/api/ops/accounts/${m.accountId}/payout-hold`, { reason: 'Chargebacks altos' }))
        .status,
    ).toBe(200);
    expect(await standing()).toMatchObject({ payoutHold: true, payoutHoldReason: 'Chargebacks altos' });
    expect(
      (await ops(risk, `/api/ops/accounts/${m.accountId}/suspend`, { reason: 'Documentos vencidos' })).status,
    ).toBe(200);
    expect(await standing()).toMatchObject({
      status: 'suspended',
      statusReason: 'Documentos vencidos',
      payoutHoldReason: 'Chargebacks altos',
    });

    expect((await ops(risk, `/api/ops/accounts/${m.accountId}/reactivate`)).status).toBe(200);
    expect((await ops(risk, `/api/ops/accounts/${m.accountId}/payout-release`)).status).toBe(200);
    expect(await standing()).toMatchObject({
      status: 'active',
      statusReason: null,
      payoutHold: false,
      payoutHoldReason: null,
    });
  });
});

describe("the console's lists name accounts", () => {
  it('held withdrawals, the review queue and the audit log carry each account’s name', async () => {
    const m = await createMerchant(server, 'Mercearia Nomeada');
    await fundMerchant(server.runtime.platform.db, m.accountId, 100_000);
    await ops(risk, `/api/ops/accounts/${m.accountId}/payout-hold`, { reason: 'análise' });
    const held = await createCashout(server.url, m, 150);

    const queue = await read<{ data: { id: number; accountId: number; accountName?: string }[] }>(
      risk,
      `/api/ops/withdrawals?queue=held&accountId=${m.accountId}`,
    );
    expect(queue.status).toBe(200);
    expect(queue.body.data.find((w) => w.id === held.id)).toMatchObject({
      accountId: m.accountId,
      accountName: 'Mercearia Nomeada',
    });

    const audit = await read<{ data: { action: string; accountId: number | null; accountName?: string }[] }>(
      risk,
      `/api/ops/audit?accountId=${m.accountId}`,
    );
    const hold = audit.body.data.find((e) => e.action === 'account.payout-hold');
    expect(hold).toMatchObject({ accountId: m.accountId, accountName: 'Mercearia Nomeada' });
    // an entry with no account has no name
    const all = await read<{ data: { action: string; accountId: number | null; accountName?: string }[] }>(
      risk,
      '/api/ops/audit',
    );
    for (const e of all.body.data) {
      if (e.accountId === null) expect(e.accountName).toBeUndefined();
      // every action written is one of the closed list the console labels
      expect(OPERATOR_AUDIT_ACTIONS as readonly string[]).toContain(e.action);
    }

    const signup = await call('POST', `${server.url}/api/signup`, {
      body: {
        name: 'Cadastro Nomeado',
        legalName: 'Cadastro Nomeado Ltda',
        document: '11222333000181',
        email: `nomeado-${Date.now()}@example.com`,
        password: 'senha-bem-longa',
        phone: '11987654321',
        address: {
          street: 'Rua A',
          number: '1',
          district: 'Centro',
          city: 'Recife',
          state: 'PE',
          zipCode: '50000-000',
        },
      },
    });
    expect(signup.status).toBe(201);
    const reviews = await read<{ data: { kind: string; accountName?: string }[] }>(
      admin,
      '/api/ops/reviews?kind=onboarding',
    );
    expect(reviews.body.data.map((r) => r.accountName)).toContain('Cadastro Nomeado');
  });

  it('a reason of spaces alone is no reason (400, nothing changed); ids and flags out of their range are 400, never a 500', async () => {
    const m = await createMerchant(server, 'Loja em Branco');
    for (const path of ['suspend', 'payout-hold']) {
      const blank = await ops(risk, `/api/ops/accounts/${m.accountId}/${path}`, { reason: '   ' });
      expect(blank.status, `${path}: ${blank.text}`).toBe(400);
      expect(blank.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    }
    const standing = await call<Standing>('GET', `${server.url}/api/onboarding`, { headers: m.panel });
    expect(standing.body).toMatchObject({ status: 'active', payoutHold: false });
    // as JSON texts: past 2^53, past a bigint, and a float no column holds
    for (const planId of ['99999999999999999999', '1e308', '9007199254740992']) {
      const huge = await call('POST', `${server.url}/api/ops/accounts/${m.accountId}/fee-plan`, {
        headers: admin.ops,
        body: JSON.parse(`{"planId":${planId}}`),
      });
      expect(huge.status, huge.text).toBe(400);
    }
    const flag = await read(admin, '/api/ops/disputes?open=maybe');
    expect(flag.status, flag.text).toBe(400);
    expect((await read(admin, '/api/ops/disputes?open=false')).status).toBe(200);
  });
});
