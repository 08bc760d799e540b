/**
 * A small store that takes PIX payments through the gateway with the SDK: a checkout page that opens a PIX
 * charge and shows its QR code, a webhook endpoint that verifies each notification and updates the order, a
 * page with the order's status and a button that refunds part of a paid order. Orders live in memory: this is
 * an example, not a shop. The lines that talk to the gateway sit between `gateway:begin` and `gateway:end`
 * (test/examples/plumbing.test.ts counts them); the rest is the shop.
 *
 *   GATEWAY_URL=http://localhost:3000 GATEWAY_PUBLIC_KEY=pk_… GATEWAY_PRIVATE_KEY=sk_… \
 *   GATEWAY_WEBHOOK_SECRET=whsec_… npm run example:shop
 *
 * Point a webhook (panel, Webhooks) or `gateway listen --forward-to http://localhost:4243/webhooks` at it.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
// gateway:begin
import { Gateway, isSaleEvent, webhookHandler } from '@payment-gateway/sdk';

// gateway:end

type Status = 'awaiting payment' | 'paid' | 'partly refunded' | 'refunded' | 'cancelled';
interface Order {
  id: string;
  item: string;
  cents: number;
  status: Status;
  refundedCents: number;
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

const orders = new Map<string, Order>();
const PRODUCT = { item: 'Camiseta do gateway', cents: 4990 };
const BUYER = {
  name: 'Maria Silva',
  email: 'maria@example.com',
  document: '52998224725',
  phone: '5511987654321',
};
/** What a refund gives back: the gift wrap, say. */
const REFUND_CENTS = 1000;

const html = (title: string, body: string) =>
  `<!doctype html><html lang="pt-BR"><meta charset="utf-8"><title>${title}</title><body><h1>${title}</h1>${body}</body></html>`;
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const reais = (cents: number) =>
  (cents / 100).toLocaleString('pt-BR', { style: 'currency', currency: 'BRL' });

/** The order as the gateway has its sale now (a status it does not name leaves the order's status as it is). */
function update(order: Order, status: Status | undefined, refundedCents: number): void {
  order.refundedCents = refundedCents;
  if (status) order.status = status === 'paid' && refundedCents > 0 ? 'partly refunded' : status;
  console.log(`order ${order.id}: ${order.status}`);
}

// gateway:begin
const gateway = Gateway.fromEnv(); // GATEWAY_URL, GATEWAY_PUBLIC_KEY, GATEWAY_PRIVATE_KEY
const STATUS: Record<string, Status> = { PAGO: 'paid', ESTORNADO: 'refunded', CANCELADO: 'cancelled' };
// verified, each event id once (a retry or a resend is answered 200); a throw answers 500 and the gateway retries
const webhook = webhookHandler({
  secret: env('GATEWAY_WEBHOOK_SECRET'),
  onEvent: async (event) => {
    if (!isSaleEvent(event)) return;
    const order = orders.get(event.payload.metadata.orderId);
    if (!order) return;
    // the sale as it is now decides, not the notification: notifications may come late or out of order
    const sale = await gateway.transactions.retrieve(event.payload.uuid);
    update(order, STATUS[sale.status], sale.refundedAmount);
  },
});
// gateway:end

async function checkout(res: ServerResponse): Promise<void> {
  const order: Order = {
    id: randomUUID(),
    ...PRODUCT,
    status: 'awaiting payment',
    refundedCents: 0,
    saleUuid: null,
    pixCode: null,
    qrImage: null,
  };
  // gateway:begin
  const charge = await gateway.transactions.create(
    {
      amount: order.cents,
      paymentMethod: 'PIX',
      metadata: { orderId: order.id },
      customer: BUYER,
      items: [{ title: order.item, unitPrice: order.cents, quantity: 1, tangible: true }],
    },
    { idempotencyKey: `order-${order.id}` }, // a checkout sent twice opens one charge
  );
  Object.assign(order, { saleUuid: charge.uuid, pixCode: charge.pixKey, qrImage: charge.pixQrCode ?? null });
  // gateway:end
  orders.set(order.id, order);
  // in the sandbox no bank pays it: this is how to, as the buyer's bank would
  console.log(
    `order ${order.id}: charge ${order.saleUuid} awaiting payment (sandbox: npx gateway trigger sale.paid --sale ${order.saleUuid})`,
  );
  res.writeHead(303, { location: `/orders/${order.id}` }).end();
}

async function refund(res: ServerResponse, id: string): Promise<void> {
  const order = orders.get(id);
  if (order?.status !== 'paid') {
    res.writeHead(409, { 'content-type': 'text/plain; charset=utf-8' }).end('only a paid order is refunded');
    return;
  }
  // the order changes when sale.refunded arrives
  // gateway:begin
  const key = `refund-${order.id}`; // one refund per order, however often the button is pressed
  await gateway.transactions.refund(order.saleUuid!, { amountCents: REFUND_CENTS, idempotencyKey: key });
  // gateway:end
  console.log(`order ${order.id}: ${reais(REFUND_CENTS)} refund asked`);
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
  const refundForm =
    order.status === 'paid'
      ? `<form method="post" action="/orders/${order.id}/refund"><button>Devolver ${reais(REFUND_CENTS)}</button></form>`
      : '';
  const refunded =
    order.refundedCents > 0
      ? `<p>Devolvido: <span id="refunded">${reais(order.refundedCents)}</span></p>`
      : '';
  res
    .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    .end(
      html(
        `Pedido ${order.id.slice(0, 8)}`,
        `<p>${escapeHtml(order.item)}: ${reais(order.cents)}</p><p>Situação: <strong id="status">${order.status}</strong></p>${refunded}${pay}${refundForm}`,
      ),
    );
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://shop');
  const route = `${req.method} ${url.pathname}`;
  const refundOf = /^POST \/orders\/([^/]+)\/refund$/.exec(route);
  const done = (p: Promise<void>) =>
    p.catch((err: unknown) => {
      console.error(err);
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
  else if (refundOf) void done(refund(res, refundOf[1]!));
  else if (req.method === 'GET' && url.pathname.startsWith('/orders/')) orderPage(res, url.pathname.slice(8));
  else res.writeHead(404).end();
});
const port = Number(process.env.SHOP_PORT ?? 4243);
server.listen(port, () => console.log(`shop on http://localhost:${port}`));
