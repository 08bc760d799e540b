/**
 * Reconciliation from the console (finance): a run asked for over a window is run by the gateway's own worker,
 * credits the Pix whose webhook was lost, keeps what does not match as discrepancies, which are resolved with a
 * note; every change audited; other roles refused; a gateway without a PSP says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevPsp } from '../../src/devpsp/server.js';
import { pixCharge } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { createOperator, type TestOperator } from '../support/operators.js';
import { RECEIVER_KEY, startBcbGateway, startReconcilingGateway } from '../support/psp.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';

let psp: DevPsp;
let server: TestServer;
let merchant: TestMerchant;
let finance: TestOperator;
let support: TestOperator;
let risk: TestOperator;

beforeAll(async () => {
  ({ psp, server } = await startReconcilingGateway());
  merchant = await createMerchant(server);
  finance = await createOperator(server, 'finance');
  support = await createOperator(server, 'support');
  risk = await createOperator(server, 'risk');
});
afterAll(async () => {
  await server?.close();
  await psp?.close();
});

interface Run {
  id: number;
  schedule: string;
  status: string;
  from: string;
  to: string;
  requestedBy: string | null;
  lastError: string | null;
  received: number;
  matched: number;
  creditedNow: number;
  refundedNow: number;
  discrepancies: number;
}
interface Found {
  id: number;
  saleId: number | null;
  accountId: number | null;
  accountName?: string;
  kind: string;
  e2eid: string;
  amount: number;
  resolvedAt: string | null;
  resolution: string | null;
  resolvedBy: string | null;
}

const runs = (op: TestOperator) =>
  call<{ enabled: boolean; data: Run[] }>('GET', `${server.url}/api/ops/reconciliation/runs`, {
    headers: op.ops,
  });
const ask = (op: TestOperator, body: unknown) =>
  call<Run & { error?: { code: string; message: string } }>(
    'POST',
    `${server.url}/api/ops/reconciliation/runs`,
    {
      headers: op.ops,
      body,
    },
  );
const discrepancies = (op: TestOperator, all = false) =>
  call<{ data: Found[] }>(
    'GET',
    `${server.url}/api/ops/reconciliation/discrepancies${all ? '?all=true' : ''}`,
    {
      headers: op.ops,
    },
  );
const resolve = (op: TestOperator, id: number, note: unknown) =>
  call<Found & { error?: { code: string; message: string } }>(
    'POST',
    `${server.url}/api/ops/reconciliation/discrepancies/${id}/resolve`,
    { headers: op.ops, body: { note } },
  );
/** A window around everything this test paid: from a minute ago to a minute from now. */
const window = () => ({
  from: new Date(Date.now() - 60_000).toISOString(),
  to: new Date(Date.now() + 60_000).toISOString(),
});
const finished = async (id: number) =>
  waitUntil(async () => {
    const run = (await runs(finance)).body.data.find((r) => r.id === id);
    return run?.status === 'finished' ? run : undefined;
  });
const statusOf = async (id: number) =>
  (
    await server.runtime.platform.db.query<{ status: string }>('SELECT status FROM sales WHERE id = $1', [id])
  )[0]!.status;

describe('reconciliation from the console', () => {
  it('a run asked for is run by the worker: the lost webhook credited, an unknown Pix kept, audited', async () => {
    const sale = await pixCharge(server, merchant, 4321);
    await psp.pay(sale.externalTransactionId, { times: 0 });
    const stray = await psp.receiveWithoutCharge(RECEIVER_KEY, 777);
    expect(await statusOf(sale.id)).toBe('PENDENTE');
    // a charge paid with another amount: a discrepancy naming its sale and whose it is
    const other = await pixCharge(server, merchant, 5000);
    const short = await psp.pay(other.externalTransactionId, { amountCents: 4999, times: 0 });

    const before = await runs(finance);
    expect(before.status).toBe(200);
    expect(before.body.enabled).toBe(true);
    const asked = await ask(finance, window());
    expect(asked.status, asked.text).toBe(202);
    expect(asked.body).toMatchObject({ schedule: 'manual', requestedBy: finance.email, lastError: null });
    expect(['waiting', 'running', 'finished']).toContain(asked.body.status);

    const run = await finished(asked.body.id);
    expect(run.creditedNow).toBe(1);
    expect(run.discrepancies).toBeGreaterThanOrEqual(2);
    expect(await statusOf(sale.id)).toBe('PAGO');

    // of one schedule: the frequent ones, 144 a day, would hide the others
    const manual = await call<{ data: Run[] }>(
      'GET',
      `${server.url}/api/ops/reconciliation/runs?schedule=manual`,
      {
        headers: finance.ops,
      },
    );
    expect(manual.body.data.map((r) => r.id)).toContain(run.id);
    expect(manual.body.data.every((r) => r.schedule === 'manual')).toBe(true);
    const daily = await call<{ data: Run[] }>(
      'GET',
      `${server.url}/api/ops/reconciliation/runs?schedule=daily`,
      {
        headers: finance.ops,
      },
    );
    expect(daily.body.data.map((r) => r.id)).not.toContain(run.id);
    const bogus = await call('GET', `${server.url}/api/ops/reconciliation/runs?schedule=hourly`, {
      headers: finance.ops,
    });
    expect(bogus.status).toBe(400);

    const open = await discrepancies(finance);
    const found = open.body.data.find((d) => d.e2eid === stray.endToEndId)!;
    expect(found).toMatchObject({
      kind: 'unknown_charge',
      amount: 777,
      resolvedAt: null,
      saleId: null,
      accountId: null,
    });
    expect(open.body.data.find((d) => d.e2eid === short.endToEndId)).toMatchObject({
      kind: 'amount_mismatch',
      amount: 4999,
      saleId: other.id,
      accountId: merchant.accountId,
      accountName: merchant.name,
    });

    const audit = await call<{ data: { action: string; target: string; operatorEmail: string }[] }>(
      'GET',
      `${server.url}/api/ops/audit`,
      { headers: finance.ops },
    );
    expect(audit.body.data).toContainEqual(
      expect.objectContaining({
        action: 'reconciliation.requested',
        target: `reconciliation_run:${run.id}`,
        operatorEmail: finance.email,
      }),
    );
  });

  it('a discrepancy is resolved once, with a note kept and audited', async () => {
    const stray = await psp.receiveWithoutCharge(RECEIVER_KEY, 1234);
    const asked = await ask(finance, window());
    expect(asked.status, asked.text).toBe(202);
    const first = await finished(asked.body.id);
    expect(first.discrepancies).toBeGreaterThanOrEqual(1);
    const found = (await discrepancies(finance)).body.data.find((d) => d.e2eid === stray.endToEndId)!;
    // a later run over the same window finds them again: what the first one found stays what it said
    const later = await ask(finance, window());
    await finished(later.body.id);
    expect((await runs(finance)).body.data.find((r) => r.id === first.id)?.discrepancies).toBe(
      first.discrepancies,
    );

    for (const note of ['', '   ']) {
      const empty = await resolve(finance, found.id, note);
      expect(empty.status, empty.text).toBe(400);
      expect(empty.body.error?.code).toBe('VALIDATION_ERROR');
    }
    const done = await resolve(finance, found.id, ' returned to the payer by the PSP, ticket 81 ');
    expect(done.status, done.text).toBe(200);
    expect(done.body.resolvedAt).not.toBeNull();
    expect(done.body.resolution).toBe('operator: returned to the payer by the PSP, ticket 81');
    expect(done.body.resolvedBy).toBe(finance.email);

    const again = await resolve(finance, found.id, 'twice');
    expect(again.status).toBe(409);
    expect(again.body.error?.code).toBe('INVALID_STATUS');
    const missing = await resolve(finance, 987654321, 'nothing');
    expect(missing.status).toBe(404);
    expect(missing.body.error?.code).toBe('NOT_FOUND');

    expect((await discrepancies(finance)).body.data.map((d) => d.id)).not.toContain(found.id);
    const all = await discrepancies(finance, true);
    expect(all.body.data.find((d) => d.id === found.id)?.resolution).toBe(done.body.resolution);

    const audit = await call<{ data: { action: string; target: string; after: unknown }[] }>(
      'GET',
      `${server.url}/api/ops/audit`,
      { headers: finance.ops },
    );
    expect(audit.body.data).toContainEqual(
      expect.objectContaining({
        action: 'discrepancy.resolved',
        target: `discrepancy:${found.id}`,
        after: { resolution: done.body.resolution },
      }),
    );
  });

  it('a run that fails says why while it waits to be tried again', async () => {
    server.logs.expect(/GET \/pix answered 503/);
    psp.failNext('GET /pix', { status: 503 }, 1);
    const asked = await ask(finance, window());
    expect(asked.status, asked.text).toBe(202);
    const failed = await waitUntil(async () => {
      const run = (await runs(finance)).body.data.find((r) => r.id === asked.body.id);
      return run?.status === 'retrying' ? run : undefined;
    });
    expect(failed.lastError).toMatch(/503/);
  });

  it('bad windows are 400 with what is wrong; nothing is created', async () => {
    const count = (await runs(finance)).body.data.length;
    for (const [body, message] of [
      [{ from: '2026-11-02', to: '2026-11-01' }, /end after it starts/],
      [{ from: '2026-10-01', to: '2026-11-15' }, /at most 31 days/],
      [{ from: '2026-11-31', to: '2026-12-02' }, /not a real time/],
      [{ from: '2026-13-01', to: '2026-13-02' }, /not a real time/],
      [{ from: '2026-11-29T25:00', to: '2026-11-30' }, /not a real time/],
      [{ from: '2099-01-01', to: '2099-01-02' }, /in the future/],
      [{ from: 'yesterday', to: '2026-12-02' }, /ISO 8601/],
      [{ from: '2026-11-01' }, /to/],
    ] as const) {
      const res = await ask(finance, body);
      expect(res.status, res.text).toBe(400);
      expect(res.body.error?.code).toBe('VALIDATION_ERROR');
      expect(res.body.error?.message).toMatch(message);
    }
    expect((await runs(finance)).body.data.length).toBe(count);
  });

  it('support and risk operators may neither read nor run it', async () => {
    for (const op of [support, risk]) {
      expect((await runs(op)).status).toBe(403);
      expect((await discrepancies(op)).status).toBe(403);
      expect((await ask(op, window())).status).toBe(403);
      expect((await resolve(op, 1, 'x')).status).toBe(403);
    }
  });
});

describe('runs asked for while no worker has taken them', () => {
  it('the same window again is the same run; a sixth waiting one is refused', async () => {
    // a second gateway with its own PSP, its workers off: what it is asked for waits
    const { psp: other, server: idle } = await startBcbGateway();
    try {
      const op = await createOperator(idle, 'finance');
      const body = (hoursAgo: number) => ({
        from: new Date(Date.now() - (hoursAgo + 1) * 3_600_000).toISOString(),
        to: new Date(Date.now() - hoursAgo * 3_600_000).toISOString(),
      });
      const post = (b: unknown) =>
        call<Run & { error?: { code: string; message: string } }>(
          'POST',
          `${idle.url}/api/ops/reconciliation/runs`,
          {
            headers: op.ops,
            body: b,
          },
        );
      const hourAgo = body(1);
      const same = await Promise.all([post(hourAgo), post(hourAgo)]);
      expect(same.map((r) => r.status)).toEqual([202, 202]);
      expect(same[0]!.body.id).toBe(same[1]!.body.id);
      expect(same[0]!.body.status).toBe('waiting');
      for (const h of [2, 3, 4, 5]) expect((await post(body(h))).status).toBe(202);
      const sixth = await post(body(6));
      expect(sixth.status, sixth.text).toBe(409);
      expect(sixth.body.error?.code).toBe('CONFLICT');
      expect(sixth.body.error?.message).toMatch(/still waiting or running/);
    } finally {
      await idle.close();
      await other.close();
    }
  });
});

describe('a gateway without a PSP (the sandbox)', () => {
  it('lists no run and refuses one with 409 saying why', async () => {
    const sandbox = await startServer({ workers: false });
    try {
      const op = await createOperator(sandbox, 'finance');
      const list = await call<{ enabled: boolean; data: unknown[] }>(
        'GET',
        `${sandbox.url}/api/ops/reconciliation/runs`,
        { headers: op.ops },
      );
      expect(list.body).toEqual({ enabled: false, data: [] });
      const res = await call<{ error: { code: string; message: string } }>(
        'POST',
        `${sandbox.url}/api/ops/reconciliation/runs`,
        { headers: op.ops, body: window() },
      );
      expect(res.status, res.text).toBe(409);
      expect(res.body.error.code).toBe('CONFLICT');
      expect(res.body.error.message).toMatch(/PIX_PROCESSOR=bcb/);
    } finally {
      await sandbox.close();
    }
  });
});
