import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevPsp } from '../../src/devpsp/server.js';
import { getBalance } from '../../src/ledger/ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { PixApiClient } from '../../src/payment-standards/pix-api-client.js';
import { registry } from '../../src/platform/observability/metrics.js';
import { listDiscrepancies } from '../../src/reconciliation/discrepancies.data.js';
import { reconcileDue, reconcileWindow, runPending } from '../../src/reconciliation/due-runs.js';
import type { ReconcileDeps } from '../../src/reconciliation/reconcile.js';
import { requestManualRun } from '../../src/reconciliation/runs.data.js';
import { SaleSettler } from '../../src/sales/settlement/settler.js';
import { moveSale } from '../../src/sales/settlement/transition.js';
import { eventsOf, type SaleBody, saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { pspProblems } from '../support/pix-openapi.js';
import { RECEIVER_KEY, startBcbGateway } from '../support/psp.js';
import type { TestServer } from '../support/server.js';

let psp: DevPsp;
let server: TestServer;
let merchant: TestMerchant;
let client: PixApiClient;
let deps: ReconcileDeps;

const db = () => server.runtime.platform.db;
const quiet = { info: () => undefined, warn: () => undefined };

beforeAll(async () => {
  ({ psp, server } = await startBcbGateway());
  merchant = await createMerchant(server);
  client = new PixApiClient(server.runtime.platform.config.bcb!);
  const { queue } = server.runtime.platform;
  deps = { db: db(), queue, settler: new SaleSettler(db(), queue), client };
});
afterAll(async () => {
  // every GET /pix the reconciliation sent, and every page the local PSP answered, against the Central Bank's yaml
  const problems = pspProblems(psp);
  await client?.close();
  await server?.close();
  await psp?.close();
  expect(problems).toEqual([]);
});

async function charge(amount = 10000): Promise<SaleBody> {
  const res = await call<SaleBody>('POST', `${server.url}/api/transactions`, {
    headers: merchant.keys,
    body: saleInput({ amount, items: [{ title: 'Curso', unitPrice: amount, quantity: 1, tangible: false }] }),
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}
const statusOf = async (id: number) =>
  (await db().query<{ status: string }>('SELECT status FROM sales WHERE id = $1', [id]))[0]!.status;
const eventTypes = async (id: number) => (await eventsOf(server, 'sale', id)).map((e) => e.event_type);
/** A window around everything this test paid: from a minute ago to a minute from now. */
const window = () => ({ from: new Date(Date.now() - 60_000), to: new Date(Date.now() + 60_000) });
const reconcile = async (perPage?: number) => {
  const { from, to } = window();
  return reconcileWindow(perPage === undefined ? deps : { ...deps, perPage }, from, to);
};
const discrepancyCount = async (kind: string) => {
  const metric = (await registry.getSingleMetric('gateway_reconciliation_discrepancies_total')!.get()).values;
  return metric.find((v) => v.labels.kind === kind)?.value ?? 0;
};

describe('reconciliation with the PSP (GET /pix against the local PSP)', () => {
  it('a lost webhook is credited by the next run, once; a second run and the late webhook credit nothing', async () => {
    const sale = await charge(4321);
    const before = await getBalance(db(), merchant.accountId);
    const pix = await psp.pay(sale.externalTransactionId, { times: 0 });
    expect(await statusOf(sale.id)).toBe('PENDENTE');

    const first = await reconcile();
    expect(first.creditedNow).toBe(1);
    expect(first.matched).toBeGreaterThanOrEqual(1);
    expect(await statusOf(sale.id)).toBe('PAGO');
    expect((await getBalance(db(), merchant.accountId)).total - before.total).toBe(sale.netAmount);
    expect(await eventTypes(sale.id)).toEqual(['sale.pending', 'sale.paid']);

    const second = await reconcile();
    expect(second.creditedNow).toBe(0);
    expect(second.discrepancies.filter((d) => d.e2eid === pix.endToEndId)).toEqual([]);
    const late = await call<{ outcomes: string[] }>('POST', `${server.url}/api/providers/bcb/webhook/pix`, {
      body: { pix: [{ endToEndId: pix.endToEndId, txid: pix.txid, valor: pix.valor }] },
    });
    expect(late.body.outcomes).toEqual(['duplicate']);
    expect((await getBalance(db(), merchant.accountId)).total - before.total).toBe(sale.netAmount);
    expect(await eventTypes(sale.id)).toEqual(['sale.pending', 'sale.paid']);
    expect((await verifyLedger(db())).ok).toBe(true);
  });

  it('a Pix to the key without a charge is an unknown_charge: recorded once, listed, counted, never credited', async () => {
    const counted = await discrepancyCount('unknown_charge');
    const before = await getBalance(db(), merchant.accountId);
    const pix = await psp.receiveWithoutCharge(RECEIVER_KEY, 777);
    const report = await reconcile();
    expect(report.discrepancies.filter((d) => d.e2eid === pix.endToEndId)).toEqual([
      {
        kind: 'unknown_charge',
        e2eid: pix.endToEndId,
        txid: null,
        amount: 777,
        detail: 'a Pix to the key without a txid',
      },
    ]);
    await reconcile(); // seen again: still one
    const kept = (await listDiscrepancies(db())).filter((d) => d.e2eid === pix.endToEndId);
    expect(kept).toHaveLength(1);
    expect(await discrepancyCount('unknown_charge')).toBe(counted + 1);
    expect(await getBalance(db(), merchant.accountId)).toEqual(before);
  });

  it('a wrong amount is an amount_mismatch: the sale stays PENDENTE and nothing is credited', async () => {
    const sale = await charge(10000);
    const before = await getBalance(db(), merchant.accountId);
    const pix = await psp.pay(sale.externalTransactionId, { amountCents: 9999, times: 0 });
    const report = await reconcile();
    expect(report.discrepancies.find((d) => d.e2eid === pix.endToEndId)).toEqual({
      kind: 'amount_mismatch',
      e2eid: pix.endToEndId,
      txid: sale.externalTransactionId,
      amount: 9999,
      detail: 'paid 99.99, the charge is 100.00',
    });
    expect(await statusOf(sale.id)).toBe('PENDENTE');
    expect(await getBalance(db(), merchant.accountId)).toEqual(before);
    expect(await discrepancyCount('amount_mismatch')).toBeGreaterThanOrEqual(1);
  });

  it('a Pix of a charge cancelled meanwhile credits nothing and is a closed_charge_paid, resolved once returned in full', async () => {
    const sale = await charge(2500);
    // the merchant's cancel and the payer's Pix cross: the gateway has closed the sale, the PSP still takes the Pix
    await db().tx((tx) => moveSale(tx, server.runtime.platform.queue, sale.id, 'CANCELADO'));
    const before = await getBalance(db(), merchant.accountId);
    const pix = await psp.pay(sale.externalTransactionId);
    expect(await statusOf(sale.id)).toBe('CANCELADO');
    expect(await getBalance(db(), merchant.accountId)).toEqual(before);
    const open = async () =>
      (await listDiscrepancies(db(), { all: true })).filter((d) => d.e2eid === pix.endToEndId);
    expect(await open()).toEqual([
      expect.objectContaining({
        kind: 'closed_charge_paid',
        txid: sale.externalTransactionId,
        amount: 2500,
        detail: `sale ${sale.uuid} is CANCELADO (Pix ${pix.endToEndId} of 25.00): not credited`,
        resolvedAt: null,
      }),
    ]);
    // a run finds it recorded and adds nothing; once the PSP lists it returned in full, it is resolved
    const report = await reconcile();
    expect(report.discrepancies.filter((d) => d.e2eid === pix.endToEndId)).toEqual([]);
    psp.refundAtConsole(pix.endToEndId);
    await reconcile();
    const [resolved] = await open();
    expect(resolved!.resolution).toBe('returned to the payer (devolução DEVOLVIDO at the PSP)');
    expect(await statusOf(sale.id)).toBe('CANCELADO');
    expect(await getBalance(db(), merchant.accountId)).toEqual(before);
    expect(await eventTypes(sale.id)).toEqual(['sale.pending', 'sale.canceled']);
    expect((await verifyLedger(db())).ok).toBe(true);
  });

  it('a devolução made at the PSP without a callback moves the sale to ESTORNADO, once', async () => {
    const sale = await charge(5000);
    const pix = await psp.pay(sale.externalTransactionId);
    expect(await statusOf(sale.id)).toBe('PAGO');
    const before = await getBalance(db(), merchant.accountId);
    psp.refundAtConsole(pix.endToEndId);

    const report = await reconcile();
    expect(report.refundedNow).toBe(1);
    expect(await statusOf(sale.id)).toBe('ESTORNADO');
    expect((await getBalance(db(), merchant.accountId)).total).toBe(before.total - sale.netAmount);
    expect((await reconcile()).refundedNow).toBe(0);
    expect(await eventTypes(sale.id)).toEqual(['sale.pending', 'sale.paid', 'sale.refunded']);
    expect((await verifyLedger(db())).ok).toBe(true);
  });

  it('a credit of the gateway the PSP does not list is missing_at_psp, resolved once it is listed', async () => {
    const sale = await charge(1234);
    const pix = await psp.pay(sale.externalTransactionId);
    const kept = psp.state.pix.get(pix.endToEndId)!;
    psp.state.pix.delete(pix.endToEndId);
    const report = await reconcile();
    expect(report.discrepancies.find((d) => d.e2eid === pix.endToEndId)).toMatchObject({
      kind: 'missing_at_psp',
      txid: sale.externalTransactionId,
      amount: 1234,
    });
    expect(await statusOf(sale.id)).toBe('PAGO');
    psp.state.pix.set(pix.endToEndId, kept);
    await reconcile();
    const [row] = (await listDiscrepancies(db(), { all: true })).filter((d) => d.e2eid === pix.endToEndId);
    expect(row!.resolvedAt).not.toBeNull();
  });

  it('a window of many pages is read page by page, every lost webhook credited', async () => {
    const sales = [];
    for (let i = 0; i < 7; i++) sales.push(await charge(1000 + i));
    for (const s of sales) await psp.pay(s.externalTransactionId, { times: 0 });
    const pagesBefore = psp.state.pixPages.length;
    const report = await reconcile(3);
    const pages = psp.state.pixPages.slice(pagesBefore);
    expect(pages).toEqual([...Array(Math.ceil(report.received / 3)).keys()]);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(report.creditedNow).toBe(7);
    for (const s of sales) expect(await statusOf(s.id)).toBe('PAGO');
  });

  it('a run that fails does not hold up those behind it: each is tried in the same turn, the failure named', async () => {
    // no run left over from the tests before: this turn's are the two made here
    await db().query(`UPDATE reconciliation_runs SET finished_at = now() WHERE finished_at IS NULL`);
    const { from, to } = window();
    const first = await requestManualRun(db(), from, to, 'test');
    const second = await requestManualRun(db(), new Date(from.getTime() - 1000), to, 'test');
    psp.failNext('GET /pix', { status: 503 }, 1);
    await expect(runPending(deps, quiet)).rejects.toThrow(`run ${first} (manual,`);
    const rows = await db().query<{ id: string; finished: boolean; last_error: string | null }>(
      'SELECT id, finished_at IS NOT NULL AS finished, last_error FROM reconciliation_runs WHERE id = ANY($1::bigint[]) ORDER BY id',
      [[first, second]],
    );
    expect(rows.map((r) => [Number(r.id), r.finished])).toEqual([
      [first, false],
      [second, true],
    ]);
    expect(rows[0]!.last_error).toMatch(/503/);
  });

  it('a PSP that cannot be reached ends the turn at its first run: the others wait for it, untouched', async () => {
    await db().query(`UPDATE reconciliation_runs SET finished_at = now() WHERE finished_at IS NULL`);
    const { from, to } = window();
    const first = await requestManualRun(db(), from, to, 'test');
    const second = await requestManualRun(db(), new Date(from.getTime() - 1000), to, 'test');
    // nothing listens there: the token is never asked for
    const down = new PixApiClient({
      ...server.runtime.platform.config.bcb!,
      oauthUrl: 'https://127.0.0.1:1/oauth/token',
    });
    try {
      await expect(runPending({ ...deps, client: down }, quiet)).rejects.toThrow(`run ${first} (manual,`);
    } finally {
      await down.close();
    }
    const rows = await db().query<{ id: string; finished: boolean; last_error: string | null }>(
      'SELECT id, finished_at IS NOT NULL AS finished, last_error FROM reconciliation_runs WHERE id = ANY($1::bigint[]) ORDER BY id',
      [[first, second]],
    );
    expect(rows.map((r) => [Number(r.id), r.finished, r.last_error !== null])).toEqual([
      [first, false, true],
      [second, false, false],
    ]);
    // back: one turn runs both
    await db().query('UPDATE reconciliation_runs SET leased_until = NULL WHERE id = $1', [first]);
    expect(await runPending(deps, quiet)).toBe(2);
  });

  it('a run that dies between pages is resumed by a worker at the next page, crediting each Pix once', async () => {
    const sales = [];
    for (let i = 0; i < 4; i++) sales.push(await charge(2000 + i));
    for (const s of sales) await psp.pay(s.externalTransactionId, { times: 0 });
    const pagesBefore = psp.state.pixPages.length;
    // the second page never comes: the run stops there, with the first page applied
    psp.failNext('GET /pix', { status: 503 }, 1, 1);
    await expect(reconcile(3)).rejects.toThrow();
    expect(psp.state.pixPages.slice(pagesBefore)).toEqual([0]);
    const [run] = await db().query<{ id: number; next_page: number }>(
      `SELECT id, next_page FROM reconciliation_runs WHERE finished_at IS NULL ORDER BY id DESC LIMIT 1`,
    );
    expect(run!.next_page).toBe(1);
    // its worker is gone: the lease runs out, and the next worker's turn takes the run over
    await db().query(
      `UPDATE reconciliation_runs SET leased_until = now() - interval '1 second' WHERE id = $1`,
      [run!.id],
    );
    const resumedFrom = psp.state.pixPages.length;
    await reconcileDue({ ...deps, perPage: 3 }, quiet, new Date('2001-01-01T12:00:00Z'));
    expect(psp.state.pixPages[resumedFrom]).toBe(1);
    const [done] = await db().query<{ finished: boolean }>(
      'SELECT finished_at IS NOT NULL AS finished FROM reconciliation_runs WHERE id = $1',
      [run!.id],
    );
    expect(done!.finished).toBe(true);
    for (const s of sales) {
      expect(await statusOf(s.id)).toBe('PAGO');
      expect(await eventTypes(s.id)).toEqual(['sale.pending', 'sale.paid']);
    }
  });

  it('several workers at once: each scheduled window runs once', async () => {
    const now = new Date('2002-03-04T07:00:00Z'); // 04:00 in São Paulo: the frequent window and the day before
    const done = await Promise.all([
      reconcileDue(deps, quiet, now),
      reconcileDue(deps, quiet, now),
      reconcileDue(deps, quiet, now),
    ]);
    expect(done.reduce((a, b) => a + b, 0)).toBe(2);
    const runs = await db().query<{ schedule: string; window_start: Date; window_end: Date }>(
      `SELECT schedule, window_start, window_end FROM reconciliation_runs
        WHERE window_end <= '2002-03-05' AND window_start >= '2002-03-02' ORDER BY schedule`,
    );
    expect(runs.map((r) => [r.schedule, r.window_start.toISOString(), r.window_end.toISOString()])).toEqual([
      ['daily', '2002-03-03T03:00:00.000Z', '2002-03-04T03:00:00.000Z'],
      ['frequent', '2002-03-04T05:00:00.000Z', '2002-03-04T07:00:00.000Z'],
    ]);
  });
});
