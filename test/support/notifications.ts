import { randomUUID } from 'node:crypto';
import type { EventName } from '../../src/webhooks/events.js';
import { recordNotification } from '../../src/webhooks/outbox.js';
import type { TestServer } from './server.js';

let nextId = 1000;

/** A sale notification body (webhook form) per the spec's table, keys in the spec's order. */
export function saleWebhookBody(userId: number, status = 'PAGO', id = nextId++) {
  const uuid = randomUUID();
  return {
    id,
    uuid,
    userId,
    amount: '15000',
    date: '2026-11-20T12:00:00.000Z',
    status,
    paymentMethod: 'PIX',
    customerDocument: '52998224725',
    customerEmail: 'cliente@example.com',
    customerName: 'Cliente Exemplo',
    customerPhone: '11987654321',
    pixKey: '00020126580014br.gov.bcb.pix',
    boletoCode: null,
    shipping: null,
    saleItems: [
      {
        id: 1,
        saleId: id,
        saleUuid: uuid,
        title: 'Curso — ação',
        unitPrice: '15000',
        quantity: 1,
        tangible: false,
      },
    ],
    fee: 450,
    transactionId: id,
    type: 'TRANSACTION',
  };
}

/** The postback form of the same sale: externalTransactionId, no fee/transactionId/type. */
export function salePostbackBody(webhookBody: ReturnType<typeof saleWebhookBody>) {
  const { fee: _fee, transactionId: _t, type: _type, ...rest } = webhookBody;
  return { ...rest, externalTransactionId: `ext-${webhookBody.id}` };
}

export function withdrawalBody(userId: number, status = 'COMPLETED', id = nextId++) {
  return {
    id,
    uuid: randomUUID(),
    userId,
    amount: '150.00',
    pixKey: '52998224725',
    pixKeyType: 'CPF',
    status,
    externalId: `bank-${id}`,
    createdAt: '2026-11-20T12:00:00.000Z',
    updatedAt: '2026-11-20T12:05:00.000Z',
    processedAt: '2026-11-20T12:05:00.000Z',
    user: { id: userId, name: 'Test Merchant', email: 'merchant@example.com' },
    type: 'WITHDRAWAL',
  };
}

/** Records one fact through the real outbox, as the sales and cashout domains do. Returns its event id. */
export async function recordFact(
  server: TestServer,
  accountId: number,
  event: EventName,
  options: { body?: object; postback?: { url: string; body: object } } = {},
): Promise<string> {
  const { db } = server.runtime.platform;
  const subjectType = event.startsWith('sale.')
    ? 'sale'
    : event.startsWith('withdrawal.')
      ? 'withdrawal'
      : 'cart';
  const body =
    options.body ??
    (subjectType === 'withdrawal'
      ? withdrawalBody(accountId)
      : subjectType === 'sale'
        ? saleWebhookBody(accountId)
        : {
            id: nextId++,
            userId: accountId,
            status: event === 'cart.abandoned' ? 'ABANDONED' : 'RECOVERED',
            type: 'CART',
          });
  return db.tx((tx) =>
    recordNotification(tx, {
      accountId,
      event,
      subjectType,
      subjectId: (body as { id?: number }).id ?? nextId++,
      webhookBody: body,
      ...(options.postback ? { postback: options.postback } : {}),
    }),
  );
}
