import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importRetorno } from '../../src/boletos/retorno.js';
import type { DevPsp } from '../../src/devpsp/server.js';
import { getBalance } from '../../src/ledger/ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { hasValidCrc } from '../../src/payment-standards/brcode.js';
import { nextBusinessDay } from '../../src/payment-standards/business-days.js';
import { PixApiClient } from '../../src/payment-standards/pix-api-client.js';
import { addDays } from '../../src/platform/time/calendar.js';
import { fromSaoPaulo } from '../../src/platform/time/sao-paulo.js';
import { reconcileWindow } from '../../src/reconciliation/due-runs.js';
import { SaleSettler } from '../../src/sales/settlement/settler.js';
import { eventsOf } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { pspProblems } from '../support/pix-openapi.js';
import { bcbExpiryRound, RECEIVER_KEY, startBcbGateway } from '../support/psp.js';
import type { TestServer } from '../support/server.js';
import { type BoletoSaleBody, boletoInput, DISCOUNT_UNTIL, DUE, nextSaturday, spDay } from './fixtures.js';

let psp: DevPsp;
let server: TestServer;
let merchant: TestMerchant;
const db = () => server.runtime.platform.db;
const TERMS = {
  daysAfterDue: 10,
  finePercent: '2.00',
  monthlyInterestPercent: '1.00',
  discount: { amountCents: 500, untilDate: DISCOUNT_UNTIL() },
};
/** `n` days after the due date. */
const afterDue = (n: number) => addDays(DUE(), n);
const issue = async (terms: Record<string, unknown> = TERMS) => {
  const res = await call<BoletoSaleBody>('POST', `${server.url}/api/transactions`, {
    headers: merchant.keys,
    body: boletoInput({ amount: 10000 }, terms),
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
};
const lookup = async (id: number) =>
  (await call<BoletoSaleBody>('GET', `${server.url}/api/transactions/${id}`, { headers: merchant.keys }))
    .body;
const expiryRound = () => bcbExpiryRound(server);
/** The discrepancies recorded against a boleto's cobv. */
const duplicatesOf = (txid: string) =>
  db().query<{ kind: string; e2eid: string; amount: number }>(
    'SELECT kind, e2eid, amount::int AS amount FROM reconciliation_discrepancies WHERE txid = $1 ORDER BY id',
    [txid],
  );
/** Noon in São Paulo on a date. */
const noon = (day: string) => fromSaoPaulo(`${day}T12:00:00`);

beforeAll(async () => {
  ({ psp, server } = await startBcbGateway());
  merchant = await createMerchant(server);
});
afterAll(async () => {
  const problems = pspProblems(psp);
  await server?.close();
  await psp?.close();
  expect(problems).toEqual([]);
});

describe('a boleto híbrido with PIX_PROCESSOR=bcb', () => {
  it('opens a cobv at the PSP with due date, payer, fine, interest and discount; its QR is the location', async () => {
    const sale = await issue();
    const cobv = psp.cobv.cobvs.get(sale.externalTransactionId)!;
    expect(psp.state.log).toContain(`PUT /cobv/${sale.externalTransactionId}`);
    expect(cobv.calendario).toEqual({ dataDeVencimento: DUE(), validadeAposVencimento: 10 });
    expect(cobv.devedor).toMatchObject({
      cpf: '52998224725',
      nome: 'Maria Silva',
      uf: 'SP',
      cep: '01001000',
    });
    expect(cobv.valor).toEqual({
      original: '100.00',
      multa: { modalidade: 2, valorPerc: '2.00' },
      juros: { modalidade: 3, valorPerc: '1.00' },
      desconto: { modalidade: 1, descontoDataFixa: [{ data: DISCOUNT_UNTIL(), valorPerc: '5.00' }] },
    });
    expect(cobv.chave).toBe(RECEIVER_KEY);
    expect(sale.boleto.pixCopyPaste).toContain(cobv.location);
    expect(hasValidCrc(sale.boleto.pixCopyPaste)).toBe(true);
  });

  it.each([
    ['before the due date, within the discount', () => spDay(0), 9500],
    ['on the due date', DUE, 10000],
    ['five days after: 2% fine and 1% a month for 5 days', () => afterDue(5), 10000 + 200 + 17],
  ])('paid by Pix %s: credited once on what was paid', async (_, day, paid) => {
    const sale = await issue();
    const before = await getBalance(db(), merchant.accountId);
    await psp.cobv.pay(sale.externalTransactionId, { at: noon(day()), times: 2 });
    const after = await lookup(sale.id);
    expect(after).toMatchObject({ status: 'PAGO', amount: 10000, paidAmount: paid });
    expect(after.netAmount + after.systemFee).toBe(paid);
    expect((await getBalance(db(), merchant.accountId)).total - before.total).toBe(after.netAmount);
    expect((await eventsOf(server, 'sale', sale.id)).map((e) => e.event_type)).toEqual([
      'sale.pending',
      'sale.paid',
    ]);
  });

  it('due on a Saturday: paid on Monday at its face value, on Tuesday a day late (the API Pix moves the date)', async () => {
    const saturday = nextSaturday();
    const terms = { dueDate: saturday, daysAfterDue: 0, finePercent: '2.00', monthlyInterestPercent: '1.00' };
    const monday = await issue(terms);
    expect(psp.cobv.cobvs.get(monday.externalTransactionId)!.calendario.dataDeVencimento).toBe(saturday);
    // with no day after the due date, the last day to pay is the Monday it moved to
    expect(monday.expiresAt).toBe(fromSaoPaulo(`${addDays(saturday, 3)}T00:00`).toISOString());
    await psp.cobv.pay(monday.externalTransactionId, { at: noon(addDays(saturday, 2)) });
    expect(await lookup(monday.id)).toMatchObject({ status: 'PAGO', paidAmount: 10000 });
    const tuesday = await issue({ ...terms, daysAfterDue: 1 });
    await psp.cobv.pay(tuesday.externalTransactionId, { at: noon(addDays(saturday, 3)) });
    expect(await lookup(tuesday.id)).toMatchObject({ status: 'PAGO', paidAmount: 10000 + 200 + 3 });
  });

  it('a Pix of another amount than due that day credits nothing', async () => {
    const sale = await issue();
    const pix = await psp.cobv.pay(sale.externalTransactionId, { at: noon(spDay(0)), amountCents: 10000 });
    expect((await lookup(sale.id)).status).toBe('PENDENTE');
    const [row] = await db().query<{ credited: boolean; reason: string }>(
      'SELECT credited, reason FROM bcb_received_pix WHERE e2eid = $1',
      [pix.endToEndId],
    );
    expect(row).toEqual({ credited: false, reason: 'paid 100.00, the charge is 9500 cents' });
  });

  it('expires the day after dueDate + daysAfterDue (São Paulo): CANCELADO, sale.canceled, cobv removed', async () => {
    const sale = await issue({ dueDate: DUE(), daysAfterDue: 2 });
    // the last day to pay is two days after the due date, moved off a weekend or a holiday
    const lastDay = nextBusinessDay(afterDue(2));
    expect(sale.expiresAt).toBe(fromSaoPaulo(`${addDays(lastDay, 1)}T00:00`).toISOString());
    expect(await expiryRound()).toBe(0); // not yet
    await db().query(`UPDATE sales SET charge_expires_at = now() - interval '1 second' WHERE id = $1`, [
      sale.id,
    ]);
    expect(await expiryRound()).toBe(1);
    expect((await lookup(sale.id)).status).toBe('CANCELADO');
    expect(psp.cobv.cobvs.get(sale.externalTransactionId)!.status).toBe('REMOVIDA_PELO_USUARIO_RECEBEDOR');
    expect((await eventsOf(server, 'sale', sale.id)).map((e) => e.event_type)).toEqual([
      'sale.pending',
      'sale.canceled',
    ]);
  });

  it('a boleto paid by Pix whose webhook was lost is credited at its expiry, not cancelled', async () => {
    const sale = await issue({ dueDate: spDay(0) });
    psp.state.webhooks.clear(); // the PSP cannot reach the gateway
    try {
      await psp.cobv.pay(sale.externalTransactionId, { at: noon(spDay(0)) });
    } finally {
      psp.state.webhooks.set(RECEIVER_KEY, `${server.env.PUBLIC_URL}/api/providers/bcb/webhook`);
    }
    await db().query(`UPDATE sales SET charge_expires_at = now() - interval '1 second' WHERE id = $1`, [
      sale.id,
    ]);
    expect(await expiryRound()).toBe(0);
    expect(await lookup(sale.id)).toMatchObject({ status: 'PAGO', paidAmount: 10000 });
  });

  it('a second Pix of a boleto paid by Pix (another end-to-end id) credits nothing: one duplicate_payment, however often notified', async () => {
    const sale = await issue();
    await psp.cobv.pay(sale.externalTransactionId, { at: noon(DUE()) });
    expect(await lookup(sale.id)).toMatchObject({ status: 'PAGO', paidAmount: 10000 });
    const balance = await getBalance(db(), merchant.accountId);
    const second = await psp.cobv.pay(sale.externalTransactionId, {
      at: noon(afterDue(1)),
      again: true,
      times: 2,
    });
    expect(await lookup(sale.id)).toMatchObject({ status: 'PAGO', paidAmount: 10000 });
    expect((await getBalance(db(), merchant.accountId)).total).toBe(balance.total);
    expect(await duplicatesOf(sale.externalTransactionId)).toEqual([
      { kind: 'duplicate_payment', e2eid: second.endToEndId, amount: 10203 },
    ]);
    const [row] = await db().query<{ credited: boolean; reason: string }>(
      'SELECT credited, reason FROM bcb_received_pix WHERE e2eid = $1',
      [second.endToEndId],
    );
    expect(row).toEqual({ credited: false, reason: 'the sale is PAGO' });
    expect((await eventsOf(server, 'sale', sale.id)).map((e) => e.event_type)).toEqual([
      'sale.pending',
      'sale.paid',
    ]);

    // a reconciliation run over both Pix finds the second one recorded already: no amount_mismatch besides
    const { queue } = server.runtime.platform;
    const client = new PixApiClient(server.runtime.platform.config.bcb!, 2000);
    try {
      const deps = { db: db(), queue, settler: new SaleSettler(db(), queue), client };
      const report = await reconcileWindow(
        deps,
        new Date(noon(DUE()).getTime() - 60_000),
        new Date(noon(afterDue(1)).getTime() + 60_000),
      );
      expect(report).toMatchObject({ creditedNow: 0, discrepancies: [] });
      expect(report.matched).toBe(report.received);
    } finally {
      await client.close();
    }
    expect(await duplicatesOf(sale.externalTransactionId)).toHaveLength(1);
    expect((await getBalance(db(), merchant.accountId)).total).toBe(balance.total);

    // the second payment returned to its payer at the PSP: the next run closes its discrepancy, and the
    // devolução of a Pix never credited takes nothing from the merchant
    psp.refundAtConsole(second.endToEndId);
    const again = new PixApiClient(server.runtime.platform.config.bcb!, 2000);
    try {
      const deps = { db: db(), queue, settler: new SaleSettler(db(), queue), client: again };
      await reconcileWindow(
        deps,
        new Date(noon(DUE()).getTime() - 60_000),
        new Date(noon(afterDue(1)).getTime() + 60_000),
      );
    } finally {
      await again.close();
    }
    const [closed] = await db().query<{ resolved: boolean; resolution: string }>(
      `SELECT resolved_at IS NOT NULL AS resolved, resolution FROM reconciliation_discrepancies WHERE e2eid = $1`,
      [second.endToEndId],
    );
    expect(closed).toEqual({ resolved: true, resolution: expect.stringContaining('returned to the payer') });
    expect(await lookup(sale.id)).toMatchObject({ status: 'PAGO', paidAmount: 10000 });
    expect((await getBalance(db(), merchant.accountId)).total).toBe(balance.total);
  });

  it('a Pix of a boleto paid by barcode credits nothing and is a duplicate_payment', async () => {
    const sale = await issue();
    const platform = server.runtime.platform;
    const report = await importRetorno(platform.db, platform.queue, platform.config.boleto, [
      { nossoNumero: sale.boleto.nossoNumero, paidCents: 10000, paidOn: DUE() },
    ]);
    expect(report).toMatchObject({ credited: 1 });
    const balance = await getBalance(db(), merchant.accountId);
    const pix = await psp.cobv.pay(sale.externalTransactionId, { at: noon(DUE()), times: 2 });
    expect(await lookup(sale.id)).toMatchObject({ status: 'PAGO', paidAmount: 10000 });
    expect((await getBalance(db(), merchant.accountId)).total).toBe(balance.total);
    expect(await duplicatesOf(sale.externalTransactionId)).toEqual([
      { kind: 'duplicate_payment', e2eid: pix.endToEndId, amount: 10000 },
    ]);
  });

  it('a boleto Pix whose webhook was lost is credited by reconciliation on what was due that day (a discount here)', async () => {
    const sale = await issue();
    psp.state.webhooks.clear(); // the PSP cannot reach the gateway
    let pix: { endToEndId: string };
    try {
      pix = await psp.cobv.pay(sale.externalTransactionId, { at: noon(spDay(0)) });
    } finally {
      psp.state.webhooks.set(RECEIVER_KEY, `${server.env.PUBLIC_URL}/api/providers/bcb/webhook`);
    }
    expect((await lookup(sale.id)).status).toBe('PENDENTE');
    const { queue } = server.runtime.platform;
    const client = new PixApiClient(server.runtime.platform.config.bcb!, 2000);
    try {
      const deps = { db: db(), queue, settler: new SaleSettler(db(), queue), client };
      const at = noon(spDay(0)).getTime();
      const report = await reconcileWindow(deps, new Date(at - 60_000), new Date(at + 60_000));
      expect(report.discrepancies.filter((d) => d.e2eid === pix.endToEndId)).toEqual([]);
      expect(report.creditedNow).toBe(1);
    } finally {
      await client.close();
    }
    expect(await lookup(sale.id)).toMatchObject({ status: 'PAGO', paidAmount: 9500 });
  });

  it('keeps the ledger balanced', async () => {
    expect((await verifyLedger(db())).ok).toBe(true);
  });
});
