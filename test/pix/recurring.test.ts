import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevPsp } from '../../src/devpsp/server.js';
import { getBalance } from '../../src/ledger/ledger.js';
import { journeyOf } from '../../src/pix/recurring.js';
import { eventsOf, type SaleBody } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { createOperator } from '../support/operators.js';
import { pspProblems } from '../support/pix-openapi.js';
import { freePort } from '../support/ports.js';
import { startPsp } from '../support/psp.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { createWebhook } from '../support/webhooks.js';

let psp: DevPsp;
let server: TestServer;
let merchant: TestMerchant;
let receiver: Receiver;

const db = () => server.runtime.platform.db;
const webhook = (kind: 'rec' | 'cobr') => `${server.url}/api/providers/bcb/webhook/${kind}`;
const recurrence = async (idRec: string) =>
  (
    await db().query<Record<string, unknown>>(
      `SELECT account_id, contrato, journey, amount, cycles, processor, customer
         FROM recurrences WHERE id_rec = $1`,
      [idRec],
    )
  )[0];
const cycleSales = (idRec: string) =>
  db().query<{ id: number; status: string; external_transaction_id: string; net_amount: number }>(
    `SELECT id, status, external_transaction_id, net_amount FROM sales WHERE id_rec = $1 ORDER BY id`,
    [idRec],
  );
const received = (e2eid: string) =>
  db().query<{ credited: boolean; reason: string | null }>(
    'SELECT credited, reason FROM bcb_received_pix WHERE e2eid = $1',
    [e2eid],
  );
const balance = async () => (await getBalance(db(), merchant.accountId)).total;

beforeAll(async () => {
  const started = await startPsp();
  psp = started.psp;
  // PIX_AUTOMATICO_ACCOUNT names the merchant of record: the first account of the fresh database
  server = await startServer({ env: { ...started.env(await freePort()), PIX_AUTOMATICO_ACCOUNT: '1' } });
  merchant = await createMerchant(server);
  if (merchant.accountId !== 1) throw new Error(`expected account 1, got ${merchant.accountId}`);
  receiver = await startReceiver();
  await createWebhook(server, merchant, `${receiver.url}/hook`, ['sale.paid']);
});
afterAll(async () => {
  // every request the adapter sent (and every answer and callback of the local PSP), against the yaml
  const exchanges = psp?.state.exchanges ?? [];
  const problems = pspProblems(psp);
  await receiver?.close();
  await server?.close();
  await psp?.close();
  expect(problems).toEqual([]);
  const checked = new Set(exchanges.map((x) => `${x.method} ${x.path}`));
  for (const op of ['PUT /webhookrec', 'PUT /webhookcobr', 'GET /rec/{idRec}', 'GET /cobr/{txid}']) {
    expect(checked).toContain(op);
  }
});

describe('Pix Automático through PIX_PROCESSOR=bcb against a local PSP over mutual TLS', () => {
  it('registers the webhooks for mandates and recurring charges at start', () => {
    const url = `${server.env.PUBLIC_URL}/api/providers/bcb/webhook`;
    expect(psp.recurring.webhookRec).toBe(url);
    expect(psp.recurring.webhookCobr).toBe(url);
  });

  it('mandate approved → recurrence; cycle paid → PIX_AUTOMATICO sale PAGO with idRec and contrato, ledger, notification', async () => {
    const before = await balance();
    const rec = psp.recurring.create({ contrato: 'CTR-2026-001', amountCents: 4990 });
    await psp.recurring.approve(rec.idRec);
    expect(psp.state.log).toContain(`GET /rec/${rec.idRec}`);
    expect(await recurrence(rec.idRec)).toEqual({
      account_id: 1,
      contrato: 'CTR-2026-001',
      journey: 2,
      amount: 4990,
      cycles: 0,
      processor: 'bcb',
      customer: { name: 'Empresa Pagadora Ltda', email: '', document: '11222333000181', phone: '' },
    });
    expect(await cycleSales(rec.idRec)).toEqual([]); // journey 2: authorizing creates no sale

    const cobr = await psp.recurring.payCycle(rec.idRec);
    expect(psp.state.log).toContain(`GET /cobr/${cobr.txid}`);
    const [sale] = await cycleSales(rec.idRec);
    expect(sale).toMatchObject({ status: 'PAGO', external_transaction_id: cobr.txid });
    expect(await received(cobr.pix[0]!.endToEndId)).toEqual([{ credited: true, reason: null }]);
    expect((await balance()) - before).toBe(sale!.net_amount);
    expect((await eventsOf(server, 'sale', sale!.id)).map((e) => e.event_type)).toEqual(['sale.paid']);

    const lookup = await call<SaleBody>('GET', `${server.url}/api/transactions/${sale!.id}`, {
      headers: merchant.keys,
    });
    expect(lookup.status).toBe(200);
    expect(lookup.body).toMatchObject({
      status: 'PAGO',
      amount: 4990,
      paymentMethod: 'PIX_AUTOMATICO',
      idRec: rec.idRec,
      contrato: 'CTR-2026-001',
    });

    const [delivered] = await receiver.waitFor(1);
    expect(JSON.parse(delivered!.body.toString('utf8'))).toMatchObject({
      id: sale!.id,
      status: 'PAGO',
      paymentMethod: 'PIX_AUTOMATICO',
      amount: '4990',
      idRec: rec.idRec,
      contrato: 'CTR-2026-001',
    });

    // each later cycle is its own sale and its own notification
    const next = await psp.recurring.payCycle(rec.idRec);
    const sales = await cycleSales(rec.idRec);
    expect(sales.map((s) => s.external_transaction_id)).toEqual([cobr.txid, next.txid]);
    const bodies = (await receiver.waitFor(2)).map((r) => JSON.parse(r.body.toString('utf8')));
    expect(bodies.map((b) => b.id)).toEqual([sales[0]!.id, sales[1]!.id]);
    expect((await recurrence(rec.idRec))!.cycles).toBe(2);
  });

  it('duplicated callbacks record the mandate once and credit the cycle once', async () => {
    const rec = psp.recurring.create({ contrato: 'CTR-DUP', amountCents: 1500 });
    await psp.recurring.approve(rec.idRec, { times: 2 });
    const before = await balance();
    const cobr = await psp.recurring.payCycle(rec.idRec, { times: 2 });
    const again = await call<{ outcomes: string[] }>('POST', webhook('cobr'), {
      body: { cobsr: [{ idRec: rec.idRec, txid: cobr.txid, status: 'CONCLUIDA' }] },
    });
    expect(again.body.outcomes).toEqual(['duplicate']);
    const recAgain = await call<{ outcomes: string[] }>('POST', webhook('rec'), {
      body: { recs: [{ idRec: rec.idRec, status: 'APROVADA' }] },
    });
    expect(recAgain.body.outcomes).toEqual(['known']);

    const sales = await cycleSales(rec.idRec);
    expect(sales).toHaveLength(1);
    expect((await balance()) - before).toBe(sales[0]!.net_amount);
    expect((await eventsOf(server, 'sale', sales[0]!.id)).map((e) => e.event_type)).toEqual(['sale.paid']);
    expect((await recurrence(rec.idRec))!.cycles).toBe(1);
  });

  it('callbacks for an unknown idRec or txid, or a mandate not approved, are answered 200 and change nothing', async () => {
    const idRec = 'RN9999999920260101unknown0001';
    const txid = 'unknowncobr00000000000000000001';
    const count = async () =>
      (await db().query<{ n: number }>('SELECT count(*)::int AS n FROM recurrences'))[0]!.n;
    const recurrences = await count();
    await psp.recurring.notifyUnknown(idRec, txid); // throws unless the gateway answers 2xx
    const rec = await call<{ outcomes: string[] }>('POST', webhook('rec'), { body: { recs: [{ idRec }] } });
    expect(rec).toMatchObject({ status: 200, body: { outcomes: ['not_confirmed'] } });
    const cobr = await call<{ outcomes: string[] }>('POST', webhook('cobr'), { body: { cobsr: [{ txid }] } });
    expect(cobr).toMatchObject({ status: 200, body: { outcomes: ['not_confirmed'] } });

    const pending = psp.recurring.create({ contrato: 'CTR-PENDING', amountCents: 1000 });
    const notApproved = await call<{ outcomes: string[] }>('POST', webhook('rec'), {
      body: { recs: [{ idRec: pending.idRec, status: 'APROVADA' }] }, // the body lies; the PSP says CRIADA
    });
    expect(notApproved.body.outcomes).toEqual(['not_approved']);
    expect(await count()).toBe(recurrences);
    expect(await db().query('SELECT 1 FROM bcb_received_pix WHERE txid = $1', [txid])).toHaveLength(0);
  });

  it('a malformed callback → 400 in the route’s error shape', async () => {
    const res = await call<Record<string, unknown>>('POST', webhook('cobr'), { body: { cobsr: [{}] } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } }); // shape A
  });

  it('a cycle paid with an amount that differs from its charge is recorded and credits nothing', async () => {
    const rec = psp.recurring.create({ contrato: 'CTR-SHORT', amountCents: 2000 });
    await psp.recurring.approve(rec.idRec);
    const before = await balance();
    const cobr = await psp.recurring.payCycle(rec.idRec, { paidCents: 1999 });
    expect(await received(cobr.pix[0]!.endToEndId)).toEqual([
      { credited: false, reason: 'paid 19.99, the charge is 2000 cents' },
    ]);
    expect(await cycleSales(rec.idRec)).toEqual([]);
    expect(await balance()).toBe(before);
    // the payer was debited: owed back, recorded with the mandate it was for (not left to a run as a Pix of nobody)
    const [owed] = await db().query<{ kind: string; txid: string; amount: number; detail: string }>(
      'SELECT kind, txid, amount::int AS amount, detail FROM reconciliation_discrepancies WHERE e2eid = $1',
      [cobr.pix[0]!.endToEndId],
    );
    expect(owed).toMatchObject({ kind: 'closed_charge_paid', txid: cobr.txid, amount: 1999 });
    expect(owed!.detail).toContain(`mandate ${rec.idRec} (contrato CTR-SHORT`);
    expect(owed!.detail).toContain('not credited: paid 19.99, the charge is 2000 cents');
  });

  it('a cycle of a mandate whose own callback never came reads the mandate back and is credited', async () => {
    const rec = psp.recurring.create({ contrato: 'CTR-LATE' }); // varying amounts: each charge says its own
    const webhookRec = psp.recurring.webhookRec;
    psp.recurring.webhookRec = null; // the PSP's callback for the approval is lost
    await psp.recurring.approve(rec.idRec);
    psp.recurring.webhookRec = webhookRec;
    expect(await recurrence(rec.idRec)).toBeUndefined();

    const cobr = await psp.recurring.payCycle(rec.idRec, { amountCents: 3333 });
    expect((await recurrence(rec.idRec))!.amount).toBeNull();
    const [sale] = await cycleSales(rec.idRec);
    expect(sale).toMatchObject({ status: 'PAGO', external_transaction_id: cobr.txid });
  });

  it('a cycle refunded: PUT devolucao, ESTORNADO when the charge’s callback reports it DEVOLVIDO (once)', async () => {
    const rec = psp.recurring.create({ contrato: 'CTR-REFUND', amountCents: 2500 });
    await psp.recurring.approve(rec.idRec);
    const before = await balance();
    const cobr = await psp.recurring.payCycle(rec.idRec);
    const [sale] = await cycleSales(rec.idRec);
    const res = await call<SaleBody>('POST', `${server.url}/api/transactions/${sale!.id}/refund`, {
      headers: merchant.keys,
    });
    expect(res.status, res.text).toBe(202);
    const pix = cobr.pix[0]!;
    const dev = psp.state.pix.get(pix.endToEndId)!.devolucoes[0]!;
    expect(dev.valor).toBe('25.00');
    await psp.settleRefund(pix.endToEndId, dev.id, 'DEVOLVIDO');
    await psp.settleRefund(pix.endToEndId, dev.id, 'DEVOLVIDO');
    expect((await cycleSales(rec.idRec))[0]!.status).toBe('ESTORNADO');
    expect(await balance()).toBe(before);
    expect((await eventsOf(server, 'sale', sale!.id)).map((e) => e.event_type)).toEqual([
      'sale.paid',
      'sale.refunded',
    ]);
  });

  it('a cycle the PSP charges while the account is suspended is refused by the admission: not credited, owed back to the payer', async () => {
    const risk = await createOperator(server, 'risk');
    const ops = (path: string, body: unknown = {}) =>
      call('POST', `${server.url}${path}`, { headers: risk.ops, body });
    const rec = psp.recurring.create({ contrato: 'CTR-SUSPENSO', amountCents: 4990 });
    await psp.recurring.approve(rec.idRec);
    expect((await ops(`/api/ops/accounts/${merchant.accountId}/suspend`, { reason: 'análise' })).status).toBe(
      200,
    );
    try {
      const before = await balance();
      // the PSP's callback is answered 2xx (payCycle throws otherwise): the money it took is recorded, not lost
      const cobr = await psp.recurring.payCycle(rec.idRec);
      const e2eid = cobr.pix[0]!.endToEndId;
      expect(await received(e2eid)).toEqual([
        {
          credited: false,
          reason: 'the admission refused the cycle: This account is suspended: charges are refused',
        },
      ]);
      expect(await cycleSales(rec.idRec)).toEqual([]);
      expect((await recurrence(rec.idRec))!.cycles).toBe(0);
      expect(await balance()).toBe(before);
      const owed = await db().query<{ kind: string; txid: string; amount: number }>(
        'SELECT kind, txid, amount::int AS amount FROM reconciliation_discrepancies WHERE e2eid = $1',
        [e2eid],
      );
      expect(owed).toEqual([{ kind: 'closed_charge_paid', txid: cobr.txid, amount: 4990 }]);
      // the callback again changes nothing
      const again = await call<{ outcomes: string[] }>('POST', webhook('cobr'), {
        body: { cobsr: [{ idRec: rec.idRec, txid: cobr.txid, status: 'CONCLUIDA' }] },
      });
      expect(again.body.outcomes).toEqual(['duplicate']);
    } finally {
      expect((await ops(`/api/ops/accounts/${merchant.accountId}/reactivate`)).status).toBe(200);
    }
    // active again, the next cycle is credited
    await psp.recurring.payCycle(rec.idRec);
    expect((await cycleSales(rec.idRec)).map((x) => x.status)).toEqual(['PAGO']);
  });

  it('the sandbox cannot debit a cycle of a mandate the PSP plays', async () => {
    const rec = psp.recurring.create({ contrato: 'CTR-REAL', amountCents: 1000 });
    await psp.recurring.approve(rec.idRec);
    const res = await call('POST', `${server.url}/api/sandbox/recurrences/${rec.idRec}/cycles`, {
      headers: merchant.keys,
    });
    expect(res.status).toBe(404);
    expect(await cycleSales(rec.idRec)).toEqual([]);
  });
});

describe('the mandate journey', () => {
  it('is read where the schema puts it (ativacao.tipoJornada) or where the yaml example does (dadosJornada)', () => {
    expect(journeyOf({ tipoJornada: 'JORNADA_2' })).toBe(2);
    expect(journeyOf({ dadosJornada: { tipoJornada: 'JORNADA_3' } })).toBe(3);
    expect(journeyOf({ tipoJornada: 'AGUARDANDO_DEFINICAO' })).toBe(1);
    expect(journeyOf(undefined)).toBe(1);
  });
});

describe("Pix Automático callbacks: ids that are not the standard's", () => {
  it('are refused without a PSP call, never failing the request', async () => {
    const before = psp.state.log.length;
    const recs = await call<{ outcomes: string[] }>('POST', webhook('rec'), {
      body: { recs: [{ idRec: '../cob/x' }, { idRec: 'RR-abc' }] },
    });
    expect(recs.status, recs.text).toBe(200);
    expect(recs.body.outcomes).toEqual(['refused', 'refused']);
    const cobrs = await call<{ outcomes: string[] }>('POST', webhook('cobr'), {
      body: { cobsr: [{ txid: '..%2Fpix' }, { txid: 'a b' }] },
    });
    expect(cobrs.status, cobrs.text).toBe(200);
    expect(cobrs.body.outcomes).toEqual(['refused', 'refused']);
    // half a surrogate pair is no text: the body is refused whole, before anything is read (every route)
    const lone = await call('POST', webhook('rec'), { body: { recs: [{ idRec: 'RR\ud800abc' }] } });
    expect(lone.status).toBe(400);
    expect(psp.state.log).toHaveLength(before);
  });
});
