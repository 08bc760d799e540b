import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../../../src/accounts/accounts.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { startServer, type TestServer } from '../../support/server.js';
import { waitUntil } from '../../support/wait.js';
import { CUSTOMER, eventsOf, moveTo, type SaleBody, sandboxSale } from '../fixtures.js';

let server: TestServer;
let merchant: TestMerchant;

beforeAll(async () => {
  server = await startServer();
  merchant = await createMerchant(server);
  await updateAccount(server.runtime.platform.db, merchant.accountId, {
    saleFeePercentE4: 39900,
    saleFeeFixed: 99,
  });
});
afterAll(() => server?.close());

const SHIPPING = { street: 'Rua A', number: '10', zipCode: '01001000', city: 'São Paulo', state: 'SP' };

function common(s: SaleBody, status: string) {
  return {
    id: s.id,
    uuid: s.uuid,
    userId: merchant.accountId,
    amount: String(s.amount),
    date: s.date,
    status,
    paymentMethod: s.paymentMethod,
    customerDocument: CUSTOMER.document,
    customerEmail: CUSTOMER.email,
    customerName: CUSTOMER.name,
    customerPhone: CUSTOMER.phone,
    pixKey: s.pixKey,
    boletoCode: s.boletoCode,
    shipping: s.shipping === null ? null : JSON.stringify(s.shipping),
    saleItems: s.items.map((i) => ({
      id: i.id,
      saleId: s.id,
      saleUuid: s.uuid,
      title: i.title,
      unitPrice: String(i.unitPrice),
      quantity: i.quantity,
      tangible: i.tangible,
    })),
  };
}
/** The event of the statuses these tests reach: every body states it last (`eventType`). */
const EVENT_OF: Record<string, string> = { PENDENTE: 'sale.pending', PAGO: 'sale.paid' };
const webhookForm = (s: SaleBody, status: string) =>
  JSON.stringify({
    ...common(s, status),
    fee: s.systemFee,
    transactionId: s.id,
    type: 'TRANSACTION',
    metadata: {},
    refundedAmount: '0',
    // what the payer paid, once paid (the amount itself here: no fine, interest or discount)
    paidAmount: status === 'PAGO' ? String(s.amount) : null,
    eventType: EVENT_OF[status],
  });
const postbackForm = (s: SaleBody, status: string) =>
  JSON.stringify({
    ...common(s, status),
    externalTransactionId: s.externalTransactionId,
    eventType: EVENT_OF[status],
  });

/** The fact reaches the notifications engine (fanned out from the outbox table by the worker). */
async function fannedOut(eventId: string): Promise<boolean> {
  return waitUntil(
    async () => {
      const [row] = await server.runtime.platform.db.query<{ done: boolean }>(
        'SELECT NOT EXISTS (SELECT 1 FROM notification_outbox WHERE event_id = $1) AS done',
        [eventId],
      );
      return row?.done ? true : undefined;
    },
    30000,
    () => `fact ${eventId} fanned out`,
  );
}

describe('sale notification facts (outbox rows)', () => {
  it('PENDENTE records sale.pending for webhooks only, in the webhook body form', async () => {
    const s = await sandboxSale(server, merchant, {
      paymentMethod: 'BOLETO',
      postbackUrl: 'https://merchant.example/pb',
      items: [
        { title: 'Livro', unitPrice: 6000, quantity: 1, tangible: true },
        { title: 'Marcador', unitPrice: 2000, quantity: 2, tangible: true },
      ],
      shipping: SHIPPING,
    });
    const events = await eventsOf(server, 'sale', s.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ event_type: 'sale.pending', postback_url: null, postback_body: null });
    expect(events[0]!.webhook_body).toBe(webhookForm(s, 'PENDENTE'));
    expect(JSON.parse(events[0]!.webhook_body).shipping).toBe(JSON.stringify(SHIPPING));
    expect(await fannedOut(events[0]!.id)).toBe(true);
  });

  it('a card or transfer sale created PENDENTE records no sale.pending (spec: "PIX or boleto generated")', async () => {
    for (const paymentMethod of ['CREDIT_CARD', 'DEBIT_CARD', 'TRANSFER']) {
      const s = await sandboxSale(server, merchant, { paymentMethod });
      expect(await eventsOf(server, 'sale', s.id)).toEqual([]);
      await moveTo(server, merchant, s.uuid, 'PAGO');
      expect((await eventsOf(server, 'sale', s.id)).map((e) => e.event_type)).toEqual(['sale.paid']);
    }
    const pix = await sandboxSale(server, merchant, { paymentMethod: 'PIX' });
    expect((await eventsOf(server, 'sale', pix.id)).map((e) => e.event_type)).toEqual(['sale.pending']);
  });

  it('PAGO records sale.paid with the webhook body and the postback body, exact bytes', async () => {
    const s = await sandboxSale(server, merchant, { postbackUrl: 'https://merchant.example/pb?x=1' });
    await moveTo(server, merchant, s.uuid, 'PAGO');
    const [pending, paid] = await eventsOf(server, 'sale', s.id);
    expect(paid!.event_type).toBe('sale.paid');
    expect(paid!.webhook_body).toBe(webhookForm(s, 'PAGO'));
    expect(paid!.postback_url).toBe('https://merchant.example/pb?x=1');
    expect(paid!.postback_body).toBe(postbackForm(s, 'PAGO'));
    expect(paid!.id).not.toBe(pending!.id);
    const body = JSON.parse(paid!.webhook_body);
    expect(body.fee).toBe(s.systemFee);
    expect(typeof body.amount).toBe('string');
    expect(JSON.parse(paid!.postback_body!)).not.toHaveProperty('fee');
    expect(JSON.parse(paid!.postback_body!)).not.toHaveProperty('type');
    expect(await fannedOut(paid!.id)).toBe(true);
  });

  it('ESTORNADO records sale.refunded whose postback, as its webhook, tells refundedAmount beside refund', async () => {
    const s = await sandboxSale(server, merchant, { postbackUrl: 'https://merchant.example/pb' });
    await moveTo(server, merchant, s.uuid, 'PAGO');
    await moveTo(server, merchant, s.uuid, 'ESTORNADO');
    const refunded = (await eventsOf(server, 'sale', s.id)).find((e) => e.event_type === 'sale.refunded')!;
    const postback = JSON.parse(refunded.postback_body!);
    const webhook = JSON.parse(refunded.webhook_body);
    expect(postback).toMatchObject({ status: 'ESTORNADO', refundedAmount: String(s.amount) });
    expect(postback.refund).toEqual(webhook.refund);
    expect(postback.refund).toMatchObject({ amountCents: s.amount, status: 'succeeded' });
    expect(webhook.refundedAmount).toBe(String(s.amount));
    // the postback form otherwise: no fee, transactionId or type
    expect(Object.keys(postback)).not.toContain('fee');
    expect(Object.keys(postback).slice(-3)).toEqual(['refundedAmount', 'refund', 'eventType']);
  });

  it('a sale without postbackUrl records no postback, even on final statuses', async () => {
    const s = await sandboxSale(server, merchant);
    await moveTo(server, merchant, s.uuid, 'RECUSADO');
    const events = await eventsOf(server, 'sale', s.id);
    expect(events.map((e) => e.event_type)).toEqual(['sale.pending', 'sale.refused']);
    for (const e of events) expect(e.postback_url).toBeNull();
  });

  it("a card sale refused by a report that gives no reason carries the acquirer's generic denial (Sale, webhook, postback); a PIX none", async () => {
    const card = await sandboxSale(server, merchant, {
      paymentMethod: 'CREDIT_CARD',
      postbackUrl: 'https://merchant.example/pb',
    });
    const refused = await moveTo(server, merchant, card.uuid, 'RECUSADO');
    const denial = { code: '05', message: 'Não Autorizada' };
    expect(refused.body).toMatchObject({ status: 'RECUSADO', refusalReason: denial });
    const look = await call<SaleBody>('GET', `${server.url}/api/transactions/${card.uuid}`, {
      headers: merchant.keys,
    });
    expect(look.body).toMatchObject({ refusalReason: denial });
    const fact = (await eventsOf(server, 'sale', card.id)).find((e) => e.event_type === 'sale.refused')!;
    expect(JSON.parse(fact.webhook_body).refusalReason).toEqual(denial);
    expect(JSON.parse(fact.postback_body!).refusalReason).toEqual(denial);

    const pix = await sandboxSale(server, merchant);
    const pixRefused = await moveTo(server, merchant, pix.uuid, 'RECUSADO');
    expect(pixRefused.body.status).toBe('RECUSADO');
    expect(pixRefused.body).not.toHaveProperty('refusalReason');
  });

  it('EM_PROCESSAMENTO records nothing; a repeated status records nothing', async () => {
    const s = await sandboxSale(server, merchant, { postbackUrl: 'https://merchant.example/pb' });
    await moveTo(server, merchant, s.uuid, 'EM_PROCESSAMENTO');
    await moveTo(server, merchant, s.uuid, 'EM_PROCESSAMENTO');
    await moveTo(server, merchant, s.uuid, 'PAGO');
    const again = await moveTo(server, merchant, s.uuid, 'PAGO');
    expect(again.status).toBe(200);
    const events = await eventsOf(server, 'sale', s.id);
    expect(events.map((e) => e.event_type)).toEqual(['sale.pending', 'sale.paid']);
  });

  it('each fact of a sale has its own event id, and the body is the fact as it happened', async () => {
    const s = await sandboxSale(server, merchant, { postbackUrl: 'https://merchant.example/pb' });
    for (const st of ['PAGO', 'MED', 'PAGO', 'CHARGEBACK', 'ESTORNADO'])
      await moveTo(server, merchant, s.uuid, st);
    const events = await eventsOf(server, 'sale', s.id);
    expect(events.map((e) => e.event_type)).toEqual([
      'sale.pending',
      'sale.paid',
      'sale.chargeback',
      'sale.paid',
      'sale.chargeback',
      'sale.refunded',
    ]);
    expect(new Set(events.map((e) => e.id)).size).toBe(6);
    expect(events.map((e) => JSON.parse(e.webhook_body).status)).toEqual([
      'PENDENTE',
      'PAGO',
      'MED',
      'PAGO',
      'CHARGEBACK',
      'ESTORNADO',
    ]);
    expect(events.slice(1).every((e) => e.postback_body !== null)).toBe(true);
  });

  it('recurring sales carry idRec and contrato in both bodies', async () => {
    const rec = await call<{ idRec: string; sale: SaleBody }>(
      'POST',
      `${server.url}/api/sandbox/recurrences`,
      {
        headers: merchant.keys,
        body: {
          contrato: 'CT-77',
          journey: 4,
          amount: 2990,
          dataInicial: '2026-12-10',
          customer: CUSTOMER,
          postbackUrl: 'https://merchant.example/rec',
        },
      },
    );
    const s = rec.body.sale;
    const events = await eventsOf(server, 'sale', s.id);
    expect(events.map((e) => e.event_type)).toEqual(['sale.paid']);
    const recurrence = { idRec: rec.body.idRec, contrato: 'CT-77' };
    expect(events[0]!.webhook_body).toBe(
      JSON.stringify({
        ...common(s, 'PAGO'),
        fee: s.systemFee,
        transactionId: s.id,
        type: 'TRANSACTION',
        metadata: {},
        refundedAmount: '0',
        paidAmount: String(s.amount),
        ...recurrence,
        eventType: 'sale.paid',
      }),
    );
    expect(events[0]!.postback_body).toBe(
      JSON.stringify({
        ...common(s, 'PAGO'),
        externalTransactionId: s.externalTransactionId,
        ...recurrence,
        eventType: 'sale.paid',
      }),
    );
    expect(JSON.parse(events[0]!.webhook_body).paymentMethod).toBe('PIX_AUTOMATICO');
  });
});
