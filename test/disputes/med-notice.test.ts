import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevPsp } from '../../src/devpsp/server.js';
import { NoInfractionList, sendDefence } from '../../src/disputes/med-notices.js';
import { getBalance } from '../../src/ledger/ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { retornoFile } from '../boletos/cnab-files.js';
import { type BoletoSaleBody, boletoInput, spDay } from '../boletos/fixtures.js';
import { eventsOf, type SaleBody, saleInput } from '../sales/fixtures.js';
import { runGateway } from '../support/cli.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startBcbGateway } from '../support/psp.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
import { type DisputeBody, decide, medNoticeReader } from './fixtures.js';

let psp: DevPsp;
let server: TestServer;
let merchant: TestMerchant;
let med: ReturnType<typeof medNoticeReader>;

beforeAll(async () => {
  ({ psp, server } = await startBcbGateway());
  merchant = await createMerchant(server);
  med = medNoticeReader(server);
});
afterAll(async () => {
  await med?.close();
  await server?.close();
  await psp?.close();
});

const db = () => server.runtime.platform.db;
const read = () => med.read();

async function paidCharge(amount: number) {
  const res = await call<SaleBody>('POST', `${server.url}/api/transactions`, {
    headers: merchant.keys,
    body: saleInput({ amount, items: [{ title: 'Curso', unitPrice: amount, quantity: 1, tangible: false }] }),
  });
  expect(res.status, res.text).toBe(201);
  const pix = await psp.pay(res.body.externalTransactionId);
  return { sale: res.body, pix };
}

async function disputesOfSale(saleUuid: string) {
  const list = await call<{ data: DisputeBody[] }>('GET', `${server.url}/api/disputes`, {
    headers: merchant.keys,
  });
  return list.body.data.filter((d) => d.saleId === saleUuid);
}

/** The amounts of a sale's refunds, oldest first (GET /api/transactions/{id}/refunds). */
const refundsOf = async (uuid: string) =>
  (
    await call<{ amountCents: number }[]>('GET', `${server.url}/api/transactions/${uuid}/refunds`, {
      headers: merchant.keys,
    })
  ).body.map((r) => r.amountCents);

const saleNow = async (uuid: string) =>
  (await call<SaleBody>('GET', `${server.url}/api/transactions/${uuid}`, { headers: merchant.keys })).body;

/** A devolução made at the PSP (not asked by the gateway) and reported DEVOLVIDO by its webhook. */
async function devolvedAtPsp(e2eid: string, id: string, valor: string, natureza: string) {
  psp.state.pix.get(e2eid)!.devolucoes.push({
    id,
    rtrId: `D99999999202611221200${id.padEnd(11, '0').slice(0, 11)}`,
    valor,
    natureza,
    horario: { solicitacao: new Date().toISOString() },
    status: 'EM_PROCESSAMENTO',
  });
  await psp.settleRefund(e2eid, id, 'DEVOLVIDO');
}

describe("the PSP's MED notice (Efí's GET /v2/gn/infracoes)", () => {
  it('the worker reads the infractions as it starts, not ten minutes later', async () => {
    const { sale, pix } = await paidCharge(4000);
    psp.infracoes.open(pix, 'Pagador não reconhece');
    // the worker process the README runs, on the same database and PSP
    const worker = await startServer({ databaseUrl: server.databaseUrl, env: { ...server.env, PORT: '0' } });
    try {
      const [dispute] = await waitUntil(async () => {
        const found = await disputesOfSale(sale.uuid);
        return found.length > 0 ? found : undefined;
      });
      expect(dispute).toMatchObject({ kind: 'med', status: 'needs_response', amountCents: 4000 });
    } finally {
      await worker.close();
    }
  });

  it("a PSP without Efí's infraction list (404) is told apart from one failing: the worker stops asking it", async () => {
    psp.failNext('GET /v2', { status: 404 });
    await expect(read()).rejects.toBeInstanceOf(NoInfractionList);
    psp.failNext('GET /v2', { status: 503 });
    await expect(read()).rejects.not.toBeInstanceOf(NoInfractionList);
  });

  it('an open infraction opens a MED dispute once; REJEITADA wins it', async () => {
    const { sale, pix } = await paidCharge(10000);
    const before = await getBalance(db(), merchant.accountId);
    const infracao = psp.infracoes.open(pix, 'Pagador relata golpe');
    expect(await read()).toMatchObject({ opened: 1 });
    expect(await read()).toMatchObject({ opened: 0 }); // read again: the same notice opens nothing more
    const [dispute] = await disputesOfSale(sale.uuid);
    expect(dispute).toMatchObject({
      kind: 'med',
      status: 'needs_response',
      amountCents: 10000,
      reason: 'Pagador relata golpe',
    });
    const during = await getBalance(db(), merchant.accountId);
    expect(during.available).toBe(before.available - 10000);
    const lookup = await call<{ status: string }>('GET', `${server.url}/api/transactions/${sale.uuid}`, {
      headers: merchant.keys,
    });
    expect(lookup.body.status).toBe('MED');

    psp.infracoes.close(infracao.idInfracao, 'REJEITADA');
    expect(await read()).toMatchObject({ won: 1 });
    expect((await disputesOfSale(sale.uuid))[0]).toMatchObject({ status: 'won' });
    expect(await getBalance(db(), merchant.accountId)).toEqual(before);
    expect(await read()).toMatchObject({ won: 0, lost: 0, opened: 0 });
  });

  it('ACEITA loses it: the sale ESTORNADO, the amount stays out; an infraction of an unknown Pix opens nothing', async () => {
    const { sale, pix } = await paidCharge(5000);
    const infracao = psp.infracoes.open(pix);
    psp.infracoes.open({
      endToEndId: 'E99999999202611251200abcdefghijk',
      valor: '10.00',
      horario: pix.horario,
    });
    expect(await read()).toMatchObject({ opened: 1, unknown: 1 });
    psp.infracoes.close(infracao.idInfracao, 'ACEITA');
    expect(await read()).toMatchObject({ lost: 1 });
    const [row] = await db().query<{ status: string }>('SELECT status FROM sales WHERE id = $1', [sale.id]);
    expect(row!.status).toBe('ESTORNADO');
    const [dispute] = await disputesOfSale(sale.uuid);
    expect(dispute).toMatchObject({ status: 'lost' });
    const [d] = await db().query<{ id: number }>('SELECT id FROM disputes WHERE uuid = $1', [dispute!.id]);
    expect((await eventsOf(server, 'dispute', d!.id)).map((e) => e.event_type)).toEqual([
      'dispute.opened',
      'dispute.lost',
    ]);
    expect((await verifyLedger(db())).problems).toEqual([]);
  });

  it("a MED's devolução is its dispute's end: the money leaves once, by the dispute's outcome, whichever comes first", async () => {
    server.logs.expect("a MED's devolução the gateway did not request");
    // the devolução first: the dispute is still open, nothing refunded; ACEITA then loses it, once
    const first = await paidCharge(5000);
    const a = psp.infracoes.open({ ...first.pix, valor: '20.00' });
    expect(await read()).toMatchObject({ opened: 1 });
    await devolvedAtPsp(first.pix.endToEndId, 'medfirst1', '20.00', 'MED_FRAUDE');
    expect(await saleNow(first.sale.uuid)).toMatchObject({ status: 'MED', refundedAmount: 0 });
    expect(await refundsOf(first.sale.uuid)).toEqual([]);
    psp.infracoes.close(a.idInfracao, 'ACEITA');
    expect(await read()).toMatchObject({ lost: 1 });
    expect(await saleNow(first.sale.uuid)).toMatchObject({ status: 'PAGO', refundedAmount: 2000 });
    expect(await refundsOf(first.sale.uuid)).toEqual([2000]);
    expect(await disputesOfSale(first.sale.uuid)).toMatchObject([{ status: 'lost' }]);

    // ACEITA first: the dispute lost takes it; its devolução reported after takes nothing more
    const second = await paidCharge(5000);
    const b = psp.infracoes.open({ ...second.pix, valor: '20.00' });
    expect(await read()).toMatchObject({ opened: 1 });
    psp.infracoes.close(b.idInfracao, 'ACEITA');
    expect(await read()).toMatchObject({ lost: 1 });
    await devolvedAtPsp(second.pix.endToEndId, 'medafter1', '20.00', 'MED_FRAUDE');
    expect(await saleNow(second.sale.uuid)).toMatchObject({ status: 'PAGO', refundedAmount: 2000 });
    expect(await refundsOf(second.sale.uuid)).toEqual([2000]);

    // the devolução during the dispute, then REJEITADA: what it gave back is lost all the same, the rest won
    const third = await paidCharge(5000);
    const c = psp.infracoes.open(third.pix); // the whole 5000
    expect(await read()).toMatchObject({ opened: 1 });
    await devolvedAtPsp(third.pix.endToEndId, 'medthen1', '20.00', 'MED_FRAUDE');
    psp.infracoes.close(c.idInfracao, 'REJEITADA');
    expect(await read()).toMatchObject({ lost: 1, won: 0 });
    expect(await saleNow(third.sale.uuid)).toMatchObject({ status: 'PAGO', refundedAmount: 2000 });
    expect(await disputesOfSale(third.sale.uuid)).toMatchObject([{ status: 'lost' }]);
    expect(await refundsOf(third.sale.uuid)).toEqual([2000]);
    expect((await verifyLedger(db())).problems).toEqual([]);
  });

  it("a MED's devolução beyond its dispute's amount: the dispute takes its amount, the rest is a refund of its own", async () => {
    server.logs.expect("a MED's devolução the gateway did not request");
    const before = await getBalance(db(), merchant.accountId);
    // during the dispute: 30.00 given back on a MED of 20.00; the 10.00 beyond it is a refund made at once, and
    // ACEITA then takes the dispute's 20.00
    const first = await paidCharge(5000);
    const a = psp.infracoes.open({ ...first.pix, valor: '20.00' });
    expect(await read()).toMatchObject({ opened: 1 });
    await devolvedAtPsp(first.pix.endToEndId, 'medmore1', '30.00', 'MED_FRAUDE');
    expect(await saleNow(first.sale.uuid)).toMatchObject({ status: 'MED', refundedAmount: 1000 });
    expect(await refundsOf(first.sale.uuid)).toEqual([1000]);
    psp.infracoes.close(a.idInfracao, 'ACEITA');
    expect(await read()).toMatchObject({ lost: 1 });
    expect(await saleNow(first.sale.uuid)).toMatchObject({ status: 'PAGO', refundedAmount: 3000 });
    expect(await refundsOf(first.sale.uuid)).toEqual([1000, 2000]);

    // after the dispute was lost: its 30.00 reported after ACEITA is the dispute's 20.00 and a refund of 10.00
    const second = await paidCharge(5000);
    const b = psp.infracoes.open({ ...second.pix, valor: '20.00' });
    expect(await read()).toMatchObject({ opened: 1 });
    psp.infracoes.close(b.idInfracao, 'ACEITA');
    expect(await read()).toMatchObject({ lost: 1 });
    await devolvedAtPsp(second.pix.endToEndId, 'medmore2', '30.00', 'MED_FRAUDE');
    expect(await saleNow(second.sale.uuid)).toMatchObject({ status: 'PAGO', refundedAmount: 3000 });
    expect(await refundsOf(second.sale.uuid)).toEqual([2000, 1000]);

    // 20.00 given back during a MED of the whole 50.00, then REJEITADA: the dispute lost 20.00 only, so a
    // further 10.00 given back is a refund of its own, not the dispute's
    const third = await paidCharge(5000);
    const c = psp.infracoes.open(third.pix);
    expect(await read()).toMatchObject({ opened: 1 });
    await devolvedAtPsp(third.pix.endToEndId, 'medmore3', '20.00', 'MED_FRAUDE');
    psp.infracoes.close(c.idInfracao, 'REJEITADA');
    expect(await read()).toMatchObject({ lost: 1 });
    expect(await saleNow(third.sale.uuid)).toMatchObject({ status: 'PAGO', refundedAmount: 2000 });
    await devolvedAtPsp(third.pix.endToEndId, 'medmore4', '10.00', 'MED_OPERACIONAL');
    expect(await saleNow(third.sale.uuid)).toMatchObject({ status: 'PAGO', refundedAmount: 3000 });
    expect(await refundsOf(third.sale.uuid)).toEqual([2000, 1000]);

    // the three paid 15000 (no fee on this account), and 9000 went back to their payers
    const after = await getBalance(db(), merchant.accountId);
    expect(after.available + after.blocked).toBe(before.available + before.blocked + 15000 - 9000);
    expect((await verifyLedger(db())).problems).toEqual([]);
  });

  it("a verdict of won on a MED whose devolução the PSP made during it is lost for that part, by any door (the sandbox's here)", async () => {
    server.logs.expect("a MED's devolução the gateway did not request");
    const { sale, pix } = await paidCharge(5000);
    psp.infracoes.open(pix);
    expect(await read()).toMatchObject({ opened: 1 });
    await devolvedAtPsp(pix.endToEndId, 'medwon1', '20.00', 'MED_FRAUDE');
    const [dispute] = await disputesOfSale(sale.uuid);
    const verdict = await decide(server, merchant, dispute!.id, 'won');
    expect(verdict.status, verdict.text).toBe(200);
    expect(verdict.body).toMatchObject({ status: 'lost' });
    expect(await saleNow(sale.uuid)).toMatchObject({ status: 'PAGO', refundedAmount: 2000 });
    expect(await refundsOf(sale.uuid)).toEqual([2000]);
    expect((await verifyLedger(db())).problems).toEqual([]);
  });

  it('a devolução of its own made during a MED is taken once: the loss takes only what is left, and a sale refunded in full closes its dispute', async () => {
    server.logs.expect('devolução the gateway did not request');
    const before = await getBalance(db(), merchant.accountId);
    // part given back at the PSP during the MED, then ACEITA: the loss is what was left, 3000, not the 5000 again
    const a = await paidCharge(5000);
    const infracaoA = psp.infracoes.open(a.pix);
    expect(await read()).toMatchObject({ opened: 1 });
    await devolvedAtPsp(a.pix.endToEndId, 'ownpart1', '20.00', 'ORIGINAL');
    expect(await saleNow(a.sale.uuid)).toMatchObject({ status: 'MED', refundedAmount: 2000 });
    psp.infracoes.close(infracaoA.idInfracao, 'ACEITA');
    expect(await read()).toMatchObject({ lost: 1 });
    expect(await saleNow(a.sale.uuid)).toMatchObject({ status: 'ESTORNADO', refundedAmount: 5000 });
    expect((await refundsOf(a.sale.uuid)).reduce((x, y) => x + y, 0)).toBe(5000);
    // all of it given back at the PSP during the MED: the sale ESTORNADO, and the verdict closes the dispute (it
    // was left open for good: its outcome refused as "no longer MED"), lost even if REJEITADA: the money is back
    const b = await paidCharge(5000);
    const infracaoB = psp.infracoes.open(b.pix);
    expect(await read()).toMatchObject({ opened: 1 });
    await devolvedAtPsp(b.pix.endToEndId, 'ownall1', '50.00', 'ORIGINAL');
    expect(await saleNow(b.sale.uuid)).toMatchObject({ status: 'ESTORNADO', refundedAmount: 5000 });
    psp.infracoes.close(infracaoB.idInfracao, 'REJEITADA');
    expect(await read()).toMatchObject({ lost: 1 });
    expect(await disputesOfSale(b.sale.uuid)).toMatchObject([{ status: 'lost' }]);
    // each sale's money left once: the two paid 10000 in all (no fee on this account), and 10000 went back
    const after = await getBalance(db(), merchant.accountId);
    expect(after.available + after.blocked).toBe(before.available + before.blocked);
    expect((await verifyLedger(db())).problems).toEqual([]);
  });

  it('a boleto paid by its Pix is disputed as any Pix (its amount leaves available); a MED never names one paid at a bank', async () => {
    const issued = await call<BoletoSaleBody>('POST', `${server.url}/api/transactions`, {
      headers: merchant.keys,
      body: boletoInput({ amount: 8000 }, { daysAfterDue: 5 }),
    });
    expect(issued.status, issued.text).toBe(201);
    const pix = await psp.cobv.pay(issued.body.externalTransactionId);
    await waitUntil(async () => {
      const [row] = await db().query<{ status: string }>('SELECT status FROM sales WHERE id = $1', [
        issued.body.id,
      ]);
      return row!.status === 'PAGO' ? true : undefined;
    });
    const before = await getBalance(db(), merchant.accountId);
    psp.infracoes.open(pix, 'Pagador relata golpe');
    expect(await read()).toMatchObject({ opened: 1 });
    const [dispute] = await disputesOfSale(issued.body.uuid);
    expect(dispute).toMatchObject({ kind: 'med', status: 'needs_response', amountCents: 8000 });
    const [row] = await db().query<{ status: string }>('SELECT status FROM sales WHERE id = $1', [
      issued.body.id,
    ]);
    expect(row!.status).toBe('MED');
    const after = await getBalance(db(), merchant.accountId);
    expect(after.available).toBe(before.available - 8000);

    // one paid at a bank (a liquidação of the bank's return file) was paid by no Pix: no MED disputes it
    const atBank = await call<BoletoSaleBody>('POST', `${server.url}/api/transactions`, {
      headers: merchant.keys,
      body: boletoInput({ amount: 3000 }, { daysAfterDue: 5 }),
    });
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'gw-med-')), 'retorno.ret');
    writeFileSync(
      file,
      retornoFile(server.runtime.platform.config.boleto, [
        { nossoNumero: atBank.body.boleto.nossoNumero, paidCents: 3000, paidOn: spDay(0) },
      ]),
      'latin1',
    );
    const imported = await runGateway(['boletos', 'retorno', file, '--json'], {
      ...server.env,
      DATABASE_URL: server.databaseUrl,
    });
    expect(JSON.parse(imported.stdout), imported.stderr).toMatchObject({ credited: 1 });
    const refused = await call('POST', `${server.url}/api/sandbox/sales/${atBank.body.uuid}/dispute`, {
      headers: merchant.keys,
      body: { kind: 'med', reason: 'fraude' },
    });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.text).toMatch(/this boleto was paid at a bank, by its barcode/);
    expect(await disputesOfSale(atBank.body.uuid)).toEqual([]);
    expect((await verifyLedger(db())).problems).toEqual([]);
  });

  it("the merchant's answer goes to Efí as the defence (rejeitado, with the text); an acceptance as aceito", async () => {
    const { pix } = await paidCharge(3000);
    const contested = psp.infracoes.open(pix);
    const second = await paidCharge(2000);
    const conceded = psp.infracoes.open(second.pix);
    await read();
    const disputeOf = async (idInfracao: string) =>
      (
        await db().query<{ id: number; uuid: string }>(
          'SELECT id, uuid FROM disputes WHERE external_id = $1',
          [idInfracao],
        )
      )[0]!;
    const a = await disputeOf(contested.idInfracao);
    const form = new FormData();
    form.append('text', 'O cliente recebeu o curso e assistiu às aulas.');
    const res = await fetch(`${server.url}/api/disputes/${a.uuid}/evidence`, {
      method: 'POST',
      headers: merchant.keys,
      body: form,
    });
    expect(res.status).toBe(200);
    const b = await disputeOf(conceded.idInfracao);
    expect(
      (await call('POST', `${server.url}/api/disputes/${b.uuid}/accept`, { headers: merchant.keys })).status,
    ).toBe(200);
    // both were queued with the answer (disputes.defend); the worker's handler sends them
    const jobs = await db().query<{ data: { disputeId: number } }>(
      "SELECT data FROM pgboss.job WHERE name = 'disputes.defend' ORDER BY created_on",
    );
    expect(jobs.map((j) => Number(j.data.disputeId))).toEqual(
      expect.arrayContaining([Number(a.id), Number(b.id)]),
    );
    const post = (path: string, body: unknown) => med.client.call('POST', path, body);
    await sendDefence(db(), post, Number(a.id));
    await sendDefence(db(), post, Number(b.id));
    expect(psp.infracoes.all.get(contested.idInfracao)).toMatchObject({
      status: 'EM_DEFESA',
      defesa: 'O cliente recebeu o curso e assistiu às aulas.',
    });
    expect(psp.infracoes.all.get(conceded.idInfracao)).toMatchObject({ status: 'ACEITA' });
    // read again: the accepted one is closed already, the contested one still under analysis
    expect(await read()).toMatchObject({ opened: 0, won: 0, lost: 0 });
  });
});
