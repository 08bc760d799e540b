/**
 * A small store that takes PIX payments through the gateway with the SDK: a checkout page that opens a PIX
 * charge and shows its QR code, a webhook endpoint that verifies each notification and marks the order paid,
 * and a page with the order's status. Orders live in memory: this is an example, not a shop.
 *
 *   GATEWAY_URL=http://localhost:3000 GATEWAY_PUBLIC_KEY=pk_… GATEWAY_PRIVATE_KEY=sk_… \
 *   GATEWAY_WEBHOOK_SECRET=whsec_… npm run example:shop
 *
 * Point a webhook (panel, Webhooks) or `gateway listen --forward-to http://localhost:4243/webhooks` at it.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  Gateway,
  GatewayError,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
} from '@payment-gateway/sdk';

interface Order {
  id: string;
  item: string;
  cents: number;
  status: 'awaiting payment' | 'paid' | 'refunded' | 'cancelled';
  saleUuid: string | null;
  pixCode: string | null;
  /** The QR code as the gateway gives it: an SVG image in a data: URI. */
  qrImage: string | null;
}

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (see examples/shop/server.ts)`);
  return value;
};

const gateway = new Gateway({
  baseUrl: process.env.GATEWAY_URL ?? 'http://localhost:3000',
  publicKey: env('GATEWAY_PUBLIC_KEY'),
  privateKey: env('GATEWAY_PRIVATE_KEY'),
});
const webhookSecret = env('GATEWAY_WEBHOOK_SECRET');
const orders = new Map<string, Order>();
const PRODUCT = { item: 'Camiseta do gateway', cents: 4990 };

const html = (title: string, body: string) =>
  `<!doctype html><html lang="pt-BR"><meta charset="utf-8"><title>${title}</title><body><h1>${title}</h1>${body}</body></html>`;
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const reais = (cents: number) =>
  (cents / 100).toLocaleString('pt-BR', { style: 'currency', currency: 'BRL' });

async function checkout(res: ServerResponse): Promise<void> {
  const order: Order = {
    id: randomUUID(),
    ...PRODUCT,
    status: 'awaiting payment',
    saleUuid: null,
    pixCode: null,
    qrImage: null,
  };
  const charge = await gateway.transactions.create(
    {
      amount: order.cents,
      paymentMethod: 'PIX',
      metadata: { orderId: order.id },
      customer: {
        name: 'Maria Silva',
        email: 'maria@example.com',
        document: '52998224725',
        phone: '5511987654321',
      },
      items: [{ title: order.item, unitPrice: order.cents, quantity: 1, tangible: true }],
    },
    { idempotencyKey: `order-${order.id}` },
  );
  order.saleUuid = charge.uuid;
  order.pixCode = charge.pixKey;
  order.qrImage = charge.pixQrCode ?? null;
  orders.set(order.id, order);
  // in the sandbox no bank pays it: this is how to, as the buyer's bank would
  console.log(
    `order ${order.id}: charge ${charge.uuid} awaiting payment (sandbox: npx gateway trigger sale.paid --sale ${charge.uuid})`,
  );
  res.writeHead(303, { location: `/orders/${order.id}` }).end();
}

function orderPage(res: ServerResponse, id: string): void {
  const order = orders.get(id);
  if (!order) {
    res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' }).end(html('Pedido não encontrado', ''));
    return;
  }
  const pay =
    order.status === 'awaiting payment' && order.qrImage
      ? `<p>Pague com PIX:</p><img id="qr" alt="QR code PIX" width="240" height="240" src="${escapeHtml(order.qrImage)}"><p>Copia e cola: <code>${escapeHtml(order.pixCode ?? '')}</code></p><p><small>No sandbox, pague com <code>npx gateway trigger sale.paid --sale ${escapeHtml(order.saleUuid ?? '')}</code></small></p>`
      : '';
  res
    .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    .end(
      html(
        `Pedido ${order.id.slice(0, 8)}`,
        `<p>${escapeHtml(order.item)}: ${reais(order.cents)}</p><p>Situação: <strong id="status">${order.status}</strong></p>${pay}`,
      ),
    );
}

async function webhook(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  let event: WebhookEvent;
  try {
    event = verifyWebhook({
      body: Buffer.concat(chunks),
      headers: req.headers as Record<string, string>,
      secret: webhookSecret,
    });
  } catch (err) {
    if (!(err instanceof WebhookVerificationError)) throw err;
    res.writeHead(400).end(err.message);
    return;
  }
  res.writeHead(200).end(); // answer first: a slow answer is retried
  // the event's type narrows its payload: here only a sale's notifications concern an order
  if (
    event.eventType !== 'sale.paid' &&
    event.eventType !== 'sale.refunded' &&
    event.eventType !== 'sale.canceled'
  )
    return;
  const order = orders.get(event.payload.metadata?.orderId ?? '');
  if (!order) return;
  // a notification says "this changed, look": the sale as the gateway has it now decides
  const sale = await gateway.transactions.retrieve(event.payload.uuid);
  const status = { PAGO: 'paid', ESTORNADO: 'refunded', CANCELADO: 'cancelled' }[sale.status] as
    | Order['status']
    | undefined;
  if (status) order.status = status;
  console.log(`${event.eventType} for order ${order.id}: ${order.status}`);
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://shop');
  const route = `${req.method} ${url.pathname}`;
  const done = (p: Promise<void> | void) =>
    Promise.resolve(p).catch((err: unknown) => {
      console.error(err instanceof GatewayError ? `${err.status} ${err.code}: ${err.message}` : err);
      if (!res.headersSent)
        res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' }).end('payment gateway error');
    });
  if (route === 'GET /') {
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        html(
          'Loja de exemplo',
          `<p>${escapeHtml(PRODUCT.item)}: ${reais(PRODUCT.cents)}</p><form method="post" action="/checkout"><button>Comprar com PIX</button></form>`,
        ),
      );
  } else if (route === 'POST /checkout') void done(checkout(res));
  else if (route === 'POST /webhooks') void done(webhook(req, res));
  else if (req.method === 'GET' && url.pathname.startsWith('/orders/')) orderPage(res, url.pathname.slice(8));
  else res.writeHead(404).end();
});
const port = Number(process.env.SHOP_PORT ?? 4243);
server.listen(port, () => console.log(`shop on http://localhost:${port}`));
