/**
 * `paidAmount` (what the payer paid) is set on every path by which a sale becomes PAGO, on the Sale object
 * (null until then): a boleto's Pix (the sandbox processor's signed report, and the PSP's Pix read back), a
 * boleto's barcode (CNAB retorno), a PIX charge (the same two ways) and a card capture.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importRetorno } from '../../src/boletos/retorno.js';
import type { DevPsp } from '../../src/devpsp/server.js';
import { addDays } from '../../src/platform/time/calendar.js';
import { fromSaoPaulo } from '../../src/platform/time/sao-paulo.js';
import { sandboxProcessorSecret, signProcessorCallback } from '../../src/sales/processors/sandbox.js';
import { type BoletoSaleBody, boletoInput, DUE, spDay } from '../boletos/fixtures.js';
import { cardBody, cardEnding } from '../cards/cards.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startBcbGateway } from '../support/psp.js';
import { startServer, type TestServer } from '../support/server.js';
import { eventsOf, type SaleBody, saleInput } from './fixtures.js';

type Paid = SaleBody & { paidAmount: number | null };

let sandbox: TestServer;
let bcb: TestServer;
let psp: DevPsp;
let merchant: TestMerchant;
let bcbMerchant: TestMerchant;

const charge = (server: TestServer, who: TestMerchant, body: unknown) =>
  call<BoletoSaleBody & Paid>('POST', `${server.url}/api/transactions`, { headers: who.keys, body });
const lookup = async (server: TestServer, who: TestMerchant, id: number) =>
  (await call<Paid>('GET', `${server.url}/api/transactions/${id}`, { headers: who.keys })).body;

/** The sandbox processor reports the sale paid, signed as it signs (its charge's Pix was paid). */
async function sandboxReportsPaid(externalTransactionId: string) {
  const body = JSON.stringify({ externalTransactionId, status: 'PAGO' });
  const ts = String(Math.floor(Date.now() / 1000));
  const secret = sandboxProcessorSecret(sandbox.runtime.platform.config.secretsKey);
  const res = await call('POST', `${sandbox.url}/api/providers/sandbox/sales/callback`, {
    headers: {
      'content-type': 'application/json',
      'x-processor-timestamp': ts,
      'x-processor-signature': signProcessorCallback(secret, ts, body),
    },
    body,
  });
  expect(res.status, res.text).toBe(200);
}

beforeAll(async () => {
  sandbox = await startServer({ workers: false });
  merchant = await createMerchant(sandbox);
  ({ psp, server: bcb } = await startBcbGateway());
  bcbMerchant = await createMerchant(bcb);
});
afterAll(async () => {
  await sandbox?.close();
  await bcb?.close();
  await psp?.close();
});

describe('paidAmount on every path to PAGO', () => {
  it('a boleto paid through its Pix: the sandbox processor’s report, and the PSP’s Pix with its discount', async () => {
    const res = await charge(sandbox, merchant, boletoInput({ amount: 10000 }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.paidAmount).toBeNull();
    await sandboxReportsPaid(res.body.externalTransactionId);
    expect(await lookup(sandbox, merchant, res.body.id)).toMatchObject({ status: 'PAGO', paidAmount: 10000 });

    const discounted = await charge(
      bcb,
      bcbMerchant,
      boletoInput({ amount: 10000 }, { discount: { amountCents: 500, untilDate: spDay(1) } }),
    );
    expect(discounted.status, discounted.text).toBe(201);
    await psp.cobv.pay(discounted.body.externalTransactionId, { at: fromSaoPaulo(`${spDay(0)}T12:00:00`) });
    const paid = await lookup(bcb, bcbMerchant, discounted.body.id);
    expect(paid).toMatchObject({ status: 'PAGO', amount: 10000, paidAmount: 9500 });
    expect(paid.netAmount + paid.systemFee).toBe(9500);
  });

  it('a boleto paid by its barcode (CNAB retorno): what the bank credited, fine and interest included', async () => {
    const res = await charge(
      sandbox,
      merchant,
      boletoInput({ amount: 10000 }, { finePercent: '2.00', daysAfterDue: 10 }),
    );
    expect(res.status, res.text).toBe(201);
    const { platform } = sandbox.runtime;
    const report = await importRetorno(platform.db, platform.queue, platform.config.boleto, [
      { nossoNumero: res.body.boleto.nossoNumero, paidCents: 10200, paidOn: addDays(DUE(), 1) }, // a day late
    ]);
    expect(report).toMatchObject({ credited: 1 });
    expect(await lookup(sandbox, merchant, res.body.id)).toMatchObject({ status: 'PAGO', paidAmount: 10200 });
    // its sale.paid says so too, beside the amount and the fee computed on what was paid
    const paidFact = (await eventsOf(sandbox, 'sale', res.body.id)).find((e) => e.event_type === 'sale.paid');
    expect(JSON.parse(paidFact!.webhook_body)).toMatchObject({ amount: '10000', paidAmount: '10200' });
  });

  it('a PIX charge paid: the sandbox processor’s report, and the PSP’s Pix read back', async () => {
    const res = await charge(sandbox, merchant, saleInput({ amount: 4321 }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.paidAmount).toBeNull();
    await sandboxReportsPaid(res.body.externalTransactionId);
    expect(await lookup(sandbox, merchant, res.body.id)).toMatchObject({ status: 'PAGO', paidAmount: 4321 });

    const atPsp = await charge(bcb, bcbMerchant, saleInput({ amount: 5678 }));
    expect(atPsp.status, atPsp.text).toBe(201);
    await psp.pay(atPsp.body.externalTransactionId);
    expect(await lookup(bcb, bcbMerchant, atPsp.body.id)).toMatchObject({ status: 'PAGO', paidAmount: 5678 });
  });

  it('a card sale captured: what was captured (part of the authorization, or all of it at once)', async () => {
    const token = async () => {
      const res = await call<{ token: string }>('POST', `${sandbox.url}/api/cards/tokens`, {
        headers: { 'x-api-public-key': merchant.publicKey },
        body: cardBody(cardEnding('0')),
      });
      expect(res.status, res.text).toBe(201);
      return res.body.token;
    };
    const card = async (extra: Record<string, unknown>) =>
      charge(
        sandbox,
        merchant,
        saleInput({ paymentMethod: 'CREDIT_CARD', card: { token: await token() }, ...extra }),
      );

    const authorized = await card({ capture: false, amount: 10000 });
    expect(authorized.status, authorized.text).toBe(201);
    expect(authorized.body).toMatchObject({ status: 'EM_PROCESSAMENTO', paidAmount: null });
    const captured = await call<Paid>(
      'POST',
      `${sandbox.url}/api/transactions/${authorized.body.id}/capture`,
      {
        headers: merchant.keys,
        body: { amountCents: 6000 },
      },
    );
    expect(captured.status, captured.text).toBe(200);
    expect(captured.body).toMatchObject({ status: 'PAGO', amount: 6000, paidAmount: 6000 });
    expect(await lookup(sandbox, merchant, authorized.body.id)).toMatchObject({ paidAmount: 6000 });

    const atOnce = await card({ amount: 2500 });
    expect(atOnce.status, atOnce.text).toBe(201);
    expect(await lookup(sandbox, merchant, atOnce.body.id)).toMatchObject({
      status: 'PAGO',
      paidAmount: 2500,
    });
  });
});
