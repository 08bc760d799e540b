/**
 * A real Medusa v2 shop (test/integrations/medusa/app: npm packages pinned by its package-lock.json, the admin
 * dashboard off, a PostgreSQL database of its own) takes its payments through the gateway's provider
 * (integrations/medusa, packed with `npm pack` and unpacked into the shop's node_modules as `npm install` would),
 * registered in the shop's medusa-config.ts. The gateway runs as a process beside it, its signed webhooks
 * registered at the shop's /hooks/payment/gateway_gateway. A buyer walks the Store API: a Pix paid in the
 * gateway's sandbox completes the cart into an order by the webhook alone; a card in 3 installments is
 * authorized at checkout and captured by the shop's admin, or voided when the admin cancels the order; a refused
 * card leaves no order and the buyer pays with another; a boleto shows its line and PDF; a partial refund from the
 * Admin API reaches the gateway's sale; an unpaid Pix left for a card is cancelled at the gateway; a resent
 * webhook is handed on again and changes nothing twice, and a forged one is refused.
 */
import { execFileSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Gateway } from '@payment-gateway/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardEnding } from '../../cards/cards.js';
import { runGateway } from '../../support/cli.js';
import { call } from '../../support/http.js';
import { admin, freshDatabase, NAMESPACE, urlFor } from '../../support/pg.js';
import { freePort } from '../../support/ports.js';
import { type ChildServer, spawnGateway } from '../../support/server.js';
import { type Running, spawnCollecting } from '../../support/snippets.js';
import { waitUntil } from '../../support/wait.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const APP = path.join(import.meta.dirname, 'app');
const MEDUSA = path.join(APP, 'node_modules', '.bin', 'medusa');
const PROVIDER_ID = 'pp_gateway_gateway';
// CI installs the shop (`npm ci --prefix test/integrations/medusa/app`, .ci/run); a checkout without it skips
// these tests, saying how to install it, rather than failing
const installed = existsSync(MEDUSA);
const maybe = installed || process.env.CI ? describe : describe.skip;
if (!installed && !process.env.CI)
  console.warn('Medusa tests skipped: run `npm ci --prefix test/integrations/medusa/app` to run them');

const BUYER = {
  name: 'Maria Silva',
  email: 'maria@example.com',
  document: '52998224725',
  phone: '5511987654321',
};
const CARD = {
  number: '4111111111111111',
  holderName: 'MARIA SILVA',
  expMonth: 12,
  expYear: 2030,
  cvv: '123',
};
const ADDRESS = {
  street: 'Rua das Flores',
  number: '100',
  district: 'Centro',
  city: 'São Paulo',
  state: 'SP',
  zipCode: '01001-000',
};

let gatewayDb: { url: string; drop: () => Promise<void> };
let gatewayProcess: ChildServer;
/** The gateway process's settings: a restart (same port, same database) takes the same. */
let gatewayEnv: Record<string, string>;
let gateway: Gateway;
let publicKey: string;
let hookId: number;
let medusa: Running;
let medusaUrl: string;
const medusaDb = `medusa_t_${NAMESPACE}_${randomBytes(4).toString('hex')}`;
let adminHeaders: Record<string, string>;
let storeHeaders: Record<string, string>;
let regionId: string;
let variantId: string;
/** The run's own folder: the packed tarballs, the gateway's DATA_DIR. */
let work: string;

/** A Medusa command in the shop's folder, to completion (its output thrown with the error when it fails). */
function medusaCommand(args: string[], env: NodeJS.ProcessEnv): void {
  try {
    execFileSync(MEDUSA, args, { cwd: APP, env, stdio: 'pipe', timeout: 180_000 });
  } catch (err) {
    const e = err as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`medusa ${args.join(' ')} failed:\n${e.stdout}\n${e.stderr}`);
  }
}

/** `npm pack` of a package folder, unpacked into the shop's node_modules as `npm install <tarball>` puts it. */
function installPacked(folder: string, name: string): void {
  const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', work], { cwd: folder })
    .toString()
    .trim()
    .split('\n')
    .pop()!;
  const target = path.join(APP, 'node_modules', ...name.split('/'));
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['-xzf', path.join(work, packed), '-C', target, '--strip-components=1']);
}

async function medusaCall<T = Record<string, unknown>>(
  method: string,
  route: string,
  body?: unknown,
  headers: Record<string, string> = route.startsWith('/admin') ? adminHeaders : storeHeaders,
) {
  const res = await call<T>(method, `${medusaUrl}${route}`, {
    headers,
    ...(body === undefined ? {} : { body }),
  });
  return res;
}

async function ok<T = Record<string, unknown>>(method: string, route: string, body?: unknown): Promise<T> {
  const res = await medusaCall<T>(method, route, body);
  if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${res.text}`);
  return res.body;
}

interface Session {
  id: string;
  status: string;
  data: Record<string, unknown> & {
    saleId?: string;
    pix?: { brCode: string; qrCode: string };
    boleto?: { digitableLine: string; pdfUrl: string; dueDate: string };
  };
}

/** A buyer's cart of `quantity` courses (R$ 129,90 each) with the gateway's payment session of `data`. */
async function cartPaidBy(data: Record<string, unknown>, quantity = 1) {
  const { cart } = await ok<{ cart: { id: string; total: number } }>('POST', '/store/carts', {
    region_id: regionId,
    email: BUYER.email,
    items: [{ variant_id: variantId, quantity }],
  });
  const { payment_collection } = await ok<{ payment_collection: { id: string } }>(
    'POST',
    '/store/payment-collections',
    { cart_id: cart.id },
  );
  const session = await choosePayment(payment_collection.id, data);
  return { cart, collectionId: payment_collection.id, session };
}

async function choosePayment(collectionId: string, data: Record<string, unknown>): Promise<Session> {
  const res = await ok<{ payment_collection: { payment_sessions: Session[] } }>(
    'POST',
    `/store/payment-collections/${collectionId}/payment-sessions`,
    { provider_id: PROVIDER_ID, data },
  );
  const sessions = res.payment_collection.payment_sessions;
  expect(sessions).toHaveLength(1);
  return sessions[0]!;
}

async function complete(cartId: string) {
  return medusaCall<{ type: string; order?: { id: string }; error?: { message: string } }>(
    'POST',
    `/store/carts/${cartId}/complete`,
  );
}

interface AdminOrder {
  id: string;
  payment_status: string;
  total: number;
  payment_collections: { payments: { id: string; amount: number; captured_at: string | null }[] }[];
}

async function adminOrder(orderId: string): Promise<AdminOrder> {
  const { order } = await ok<{ order: AdminOrder }>(
    'GET',
    `/admin/orders/${orderId}?fields=id,payment_status,total,*payment_collections,*payment_collections.payments`,
  );
  return order;
}

/** The order the cart became, once it has (the webhook completes it in the background). */
async function orderOf(cartId: string): Promise<string> {
  return waitUntil(
    async () => {
      const { cart } = await ok<{ cart: { completed_at: string | null } }>('GET', `/store/carts/${cartId}`);
      if (!cart.completed_at) return undefined;
      const done = await complete(cartId);
      return done.body.type === 'order' ? done.body.order!.id : undefined;
    },
    90_000,
    () => `cart ${cartId} completed into an order; medusa said:\n${medusa.out.slice(-30).join('\n')}`,
  );
}

maybe('a Medusa v2 shop paying through the gateway', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    if (!installed)
      throw new Error('the Medusa shop is not installed: npm ci --prefix test/integrations/medusa/app');
    work = mkdtempSync(path.join(tmpdir(), 'gw-medusa-'));
    // the gateway, a real process on its own database
    gatewayDb = await freshDatabase();
    const gatewayPort = await freePort();
    gatewayEnv = {
      DATABASE_URL: gatewayDb.url,
      DATA_DIR: path.join(work, 'gateway-data'),
      PORT: String(gatewayPort),
      // the boleto's PDF link in the session's data points here
      PUBLIC_URL: `http://127.0.0.1:${gatewayPort}`,
    };
    gatewayProcess = await spawnGateway(['serve'], gatewayEnv);
    const account = await runGateway(
      [
        'accounts',
        'create',
        '--name',
        'Loja Medusa',
        '--email',
        'loja@example.com',
        '--password',
        'uma-senha-longa',
        '--json',
      ],
      gatewayEnv,
    );
    expect(account.code, account.stderr).toBe(0);
    const accountId = (JSON.parse(account.stdout) as { id: number }).id;
    const keys = await runGateway(
      ['keys', 'create', '--account', String(accountId), '--name', 'medusa', '--json'],
      gatewayEnv,
    );
    expect(keys.code, keys.stderr).toBe(0);
    const pair = JSON.parse(keys.stdout) as { publicKey: string; privateKey: string };
    publicKey = pair.publicKey;
    gateway = new Gateway({
      baseUrl: gatewayProcess.url,
      publicKey: pair.publicKey,
      privateKey: pair.privateKey,
    });

    // the shop's webhook, registered as its README says
    const port = await freePort();
    medusaUrl = `http://127.0.0.1:${port}`;
    const hook = await gateway.webhooks.create({
      webhookUrl: `${medusaUrl}/hooks/payment/gateway_gateway`,
      events: ['sale.paid', 'sale.canceled', 'sale.refused', 'sale.refunded'],
    });
    hookId = hook.id;

    // the provider and the SDK it is built on, packed and installed into the shop
    execFileSync(
      path.join(ROOT, 'node_modules', '.bin', 'tsc'),
      ['-p', 'integrations/medusa/tsconfig.json'],
      {
        cwd: ROOT,
      },
    );
    installPacked(path.join(ROOT, 'sdk'), '@payment-gateway/sdk');
    installPacked(path.join(ROOT, 'integrations', 'medusa'), '@payment-gateway/medusa');

    // the shop: its own database, migrated; an admin user; then the server
    await admin((c) => c.query(`CREATE DATABASE ${medusaDb}`));
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'development',
      MEDUSA_DISABLE_TELEMETRY: 'true',
      DATABASE_URL: urlFor(medusaDb),
      PORT: String(port),
      JWT_SECRET: randomBytes(16).toString('hex'),
      COOKIE_SECRET: randomBytes(16).toString('hex'),
      GATEWAY_URL: gatewayProcess.url,
      GATEWAY_PUBLIC_KEY: pair.publicKey,
      GATEWAY_PRIVATE_KEY: pair.privateKey,
      GATEWAY_WEBHOOK_SECRET: hook.secret,
    };
    medusaCommand(['db:migrate'], env);
    const password = randomBytes(12).toString('hex');
    medusaCommand(['user', '-e', 'admin@loja.example', '-p', password], env);
    medusa = spawnCollecting(MEDUSA, ['start'], { cwd: APP, env });
    await waitUntil(
      () => medusa.out.some((l) => l.includes('Server is ready on port')),
      120_000,
      () => `medusa start:\n${medusa.out.join('\n')}`,
    );

    const login = await call<{ token: string }>('POST', `${medusaUrl}/auth/user/emailpass`, {
      body: { email: 'admin@loja.example', password },
    });
    expect(login.status, login.text).toBe(200);
    adminHeaders = { authorization: `Bearer ${login.body.token}` };

    // the shop's admin: a region in BRL paid through the gateway, a publishable key, a product
    const region = await ok<{ region: { id: string } }>('POST', '/admin/regions', {
      name: 'Brasil',
      currency_code: 'brl',
      countries: ['br'],
      payment_providers: [PROVIDER_ID],
    });
    regionId = region.region.id;
    const channels = await ok<{ sales_channels: { id: string }[] }>('GET', '/admin/sales-channels');
    const channelId = channels.sales_channels[0]!.id;
    const key = await ok<{ api_key: { id: string; token: string } }>('POST', '/admin/api-keys', {
      title: 'Loja',
      type: 'publishable',
    });
    await ok('POST', `/admin/api-keys/${key.api_key.id}/sales-channels`, { add: [channelId] });
    storeHeaders = { 'x-publishable-api-key': key.api_key.token };
    const product = await ok<{ product: { variants: { id: string }[] } }>('POST', '/admin/products', {
      // a course: nothing to ship, so no shipping options are needed to complete a cart
      title: 'Curso de fotografia',
      status: 'published',
      sales_channels: [{ id: channelId }],
      options: [{ title: 'Turma', values: ['Online'] }],
      variants: [
        {
          title: 'Online',
          options: { Turma: 'Online' },
          manage_inventory: false,
          prices: [{ currency_code: 'brl', amount: 129.9 }],
        },
      ],
    });
    variantId = product.product.variants[0]!.id;
  }, 400_000);

  afterAll(async () => {
    medusa?.stop();
    await medusa?.exited;
    await gatewayProcess?.stop();
    await gatewayDb?.drop();
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${medusaDb} WITH (FORCE)`));
    if (work) rmSync(work, { recursive: true, force: true });
  }, 60_000);

  let pixOrderId: string;
  let pixSaleId: string;

  it('Pix: the BR Code and QR code in the session, unpaid the cart stays a cart, paid the webhook makes the order', async () => {
    const { cart, session } = await cartPaidBy({ method: 'pix', customer: BUYER }, 2);
    expect(session.status).toBe('pending');
    expect(session.data.pix?.brCode).toMatch(/^000201/);
    expect(session.data.pix?.qrCode).toMatch(/^data:image\//);
    pixSaleId = session.data.saleId!;
    const sale = await gateway.transactions.retrieve(pixSaleId);
    expect(sale).toMatchObject({ status: 'PENDENTE', amount: 25980, paymentMethod: 'PIX' });
    expect(sale.metadata).toEqual({ medusa_session_id: session.id });

    // the buyer has not paid: completing the cart makes no order
    const early = await complete(cart.id);
    expect(early.body.type, early.text).not.toBe('order');

    await gateway.sandbox.pay(pixSaleId);
    pixOrderId = await orderOf(cart.id);
    const order = await waitUntil(async () => {
      const o = await adminOrder(pixOrderId);
      return o.payment_status === 'captured' ? o : undefined;
    });
    expect(order.total).toBe(259.8);
    expect(order.payment_collections[0]!.payments[0]).toMatchObject({ amount: 259.8 });
  });

  it('a partial refund from the Admin API reaches the gateway: the sale’s refundedAmount', async () => {
    const order = await adminOrder(pixOrderId);
    const payment = order.payment_collections[0]!.payments[0]!;
    await ok('POST', `/admin/payments/${payment.id}/refund`, { amount: 50 });
    const sale = await gateway.transactions.retrieve(pixSaleId);
    expect(sale.refundedAmount).toBe(5000);
    expect(sale.status).toBe('PAGO');
    const refunds = await gateway.refunds.list(pixSaleId);
    expect(refunds.map((r) => r.amountCents)).toEqual([5000]);
    // a fraction of a cent is refused, not rounded: Medusa would record what the gateway did not return
    const fraction = await call<{ message: string }>(
      'POST',
      `${medusaUrl}/admin/payments/${payment.id}/refund`,
      {
        headers: adminHeaders,
        body: { amount: 0.005 },
      },
    );
    expect(fraction.status, fraction.text).not.toBe(200);
    expect(fraction.text).toContain('whole cents');
    expect((await gateway.transactions.retrieve(pixSaleId)).refundedAmount).toBe(5000);
  });

  it("a storefront naming another buyer's paid sale in its session data gets no order from it: the card is charged, or nothing is", async () => {
    // a made-up token and the Pix order's paid sale: nothing to charge, and that sale is not this session's payment
    const { cart } = await cartPaidBy({
      method: 'card',
      customer: BUYER,
      card: { token: 'anything', installments: 1 },
      saleId: pixSaleId,
    });
    const refused = await complete(cart.id);
    expect(refused.body.type, refused.text).not.toBe('order');
    // a real token beside it: the buyer's card is what pays
    const token = (await gateway.cards.tokenize(CARD)).token;
    const { cart: paying } = await cartPaidBy({
      method: 'card',
      customer: BUYER,
      card: { token, installments: 1 },
      saleId: pixSaleId,
    });
    const done = await complete(paying.id);
    expect(done.body.type, done.text).toBe('order');
    const order = await adminOrder(done.body.order!.id);
    const saleId = (await paymentData(order.payment_collections[0]!.payments[0]!.id)).saleId as string;
    expect(saleId).not.toBe(pixSaleId);
    expect(await gateway.transactions.retrieve(saleId)).toMatchObject({
      paymentMethod: 'CREDIT_CARD',
      amount: 12990,
    });
  });

  it('the webhook: a resent delivery is handed on again and changes nothing twice, one not signed with the secret is refused', async () => {
    const delivered = await waitUntil(async () =>
      (await gateway.webhooks.deliveries(hookId, { limit: 100 })).find(
        (d) =>
          d.event === 'sale.paid' &&
          (d.payload as { uuid?: string }).uuid === pixSaleId &&
          d.status === 'DELIVERED',
      ),
    );
    const handed = () =>
      medusa.out.filter((l) => l.includes(`gateway webhook ${delivered.eventId} (sale.paid): captured`))
        .length;
    const before = handed();
    expect(before).toBeGreaterThanOrEqual(1);
    const lines = medusa.out.length;
    await gateway.webhooks.resend(delivered.id);
    // handed to Medusa again (a delivery whose processing had failed would be completed so) …
    await waitUntil(
      () => handed() > before,
      30_000,
      () => medusa.out.slice(-20).join('\n'),
    );
    // … whose workflow (run right after, under the cart's lock) does nothing twice and fails nothing: one
    // order, its one payment, the sale as it was
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(medusa.out.slice(lines).filter((l) => /error/i.test(l))).toEqual([]);
    const order = await adminOrder(pixOrderId);
    expect(order.payment_collections[0]!.payments).toHaveLength(1);
    expect(order.payment_collections[0]!.payments[0]).toMatchObject({ amount: 259.8 });
    expect(await gateway.transactions.retrieve(pixSaleId)).toMatchObject({
      status: 'PAGO',
      refundedAmount: 5000,
    });

    // the same body, signed with another secret: Medusa answers 200 at once, then the provider refuses it
    const body = JSON.stringify(delivered.payload);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const forged = await call('POST', `${medusaUrl}/hooks/payment/gateway_gateway`, {
      headers: {
        'content-type': 'application/json',
        'x-service-timestamp': timestamp,
        'x-service-signature': `sha256=${createHmac('sha256', 'whsec_not-the-secret').update(`${timestamp}.${body}`).digest('hex')}`,
        'x-service-event-id': 'forged-event',
        'webhook-id': 'forged-event',
        'webhook-timestamp': timestamp,
        'webhook-signature': 'v1,AAAA',
      },
      body: delivered.payload,
    });
    expect(forged.status).toBe(200);
    await waitUntil(
      () => medusa.out.some((l) => l.includes('gateway webhook refused: signature mismatch')),
      30_000,
      () => medusa.out.slice(-20).join('\n'),
    );
    const sale = await gateway.transactions.retrieve(pixSaleId);
    expect(sale.status).toBe('PAGO');
  });

  it('card in 3 installments: authorized at checkout into an order, captured at the gateway by the admin’s capture', async () => {
    const tokenized = await call<{ token: string }>('POST', `${gatewayProcess.url}/api/cards/tokens`, {
      headers: { 'x-api-public-key': publicKey },
      body: {
        number: '4111 1111 1111 1111',
        holderName: 'MARIA SILVA',
        expMonth: 12,
        expYear: 2030,
        cvv: '123',
      },
    });
    expect(tokenized.status, tokenized.text).toBe(201);
    const { cart } = await cartPaidBy({
      method: 'card',
      customer: BUYER,
      card: { token: tokenized.body.token, installments: 3 },
    });
    const done = await complete(cart.id);
    expect(done.body.type, done.text).toBe('order');
    const order = await adminOrder(done.body.order!.id);
    expect(order.payment_status).toBe('authorized');
    const payment = order.payment_collections[0]!.payments[0]!;
    const saleId = (await paymentData(payment.id)).saleId as string;
    expect(await gateway.transactions.retrieve(saleId)).toMatchObject({
      status: 'EM_PROCESSAMENTO',
      installments: 3,
      amount: 12990,
      paymentMethod: 'CREDIT_CARD',
    });

    await ok('POST', `/admin/payments/${payment.id}/capture`, {});
    expect(await gateway.transactions.retrieve(saleId)).toMatchObject({ status: 'PAGO', installments: 3 });
    expect((await adminOrder(order.id)).payment_status).toBe('captured');
  });

  it('an order paid by a card only authorized, cancelled in the admin: the authorization voided at the gateway', async () => {
    const token = (await gateway.cards.tokenize(CARD)).token;
    const { cart } = await cartPaidBy({ method: 'card', customer: BUYER, card: { token, installments: 2 } });
    const done = await complete(cart.id);
    expect(done.body.type, done.text).toBe('order');
    const order = await adminOrder(done.body.order!.id);
    const payment = order.payment_collections[0]!.payments[0]!;
    const saleId = (await paymentData(payment.id)).saleId as string;
    expect((await gateway.transactions.retrieve(saleId)).status).toBe('EM_PROCESSAMENTO');

    await ok('POST', `/admin/orders/${order.id}/cancel`, {});
    expect(await gateway.transactions.retrieve(saleId)).toMatchObject({
      status: 'CANCELADO',
      installments: 2,
    });
    const { order: canceled } = await ok<{ order: { status: string } }>(
      'GET',
      `/admin/orders/${order.id}?fields=id,status`,
    );
    expect(canceled.status).toBe('canceled');
  });

  it('a refused card: no order, the session in error with the refusal, and the buyer pays again with another card', async () => {
    const refused = (await gateway.cards.tokenize({ ...CARD, number: cardEnding('2') })).token;
    const { cart, collectionId } = await cartPaidBy({
      method: 'card',
      customer: BUYER,
      card: { token: refused },
    });
    const done = await complete(cart.id);
    expect(done.body.type, done.text).not.toBe('order');
    // the Store API shows a payment collection through its cart
    const { cart: seen } = await ok<{ cart: { payment_collection: { payment_sessions: Session[] } } }>(
      'GET',
      `/store/carts/${cart.id}?fields=*payment_collection.payment_sessions`,
    );
    const session = seen.payment_collection.payment_sessions[0]!;
    expect(session.status).toBe('error');
    expect(session.data).toMatchObject({ saleStatus: 'RECUSADO', refusalReason: { code: '05' } });

    const approved = (await gateway.cards.tokenize(CARD)).token;
    await choosePayment(collectionId, { method: 'card', customer: BUYER, card: { token: approved } });
    const again = await complete(cart.id);
    expect(again.body.type, again.text).toBe('order');
  });

  it('boleto: its line and PDF link in the session; paid, the webhook makes the order', async () => {
    const { cart, session } = await cartPaidBy({ method: 'boleto', customer: BUYER, address: ADDRESS });
    expect(session.data.boleto?.digitableLine).toMatch(/^\d{47}$/);
    const pdf = await call('GET', session.data.boleto!.pdfUrl);
    expect(pdf.status).toBe(200);
    expect(pdf.headers['content-type']).toContain('application/pdf');
    await gateway.sandbox.pay(session.data.saleId!);
    const orderId = await orderOf(cart.id);
    await waitUntil(async () => (await adminOrder(orderId)).payment_status === 'captured');
  });

  it('a paid Pix whose processing failed in Medusa (the gateway down meanwhile) becomes the order when its webhook is resent', async () => {
    const { cart, session } = await cartPaidBy({ method: 'pix', customer: BUYER });
    const saleId = session.data.saleId!;
    await gateway.sandbox.pay(saleId);
    // delivered: Medusa answered 200 and acts on it about 5 seconds later; the gateway goes down before that
    const delivered = await waitUntil(async () =>
      (await gateway.webhooks.deliveries(hookId, { limit: 100 })).find(
        (d) =>
          d.event === 'sale.paid' &&
          (d.payload as { uuid?: string }).uuid === saleId &&
          d.status === 'DELIVERED',
      ),
    );
    const lines = medusa.out.length;
    await gatewayProcess.stop();
    // Medusa's workflow cannot reach the gateway: it logs the failure, and there is no order
    await waitUntil(
      () => medusa.out.slice(lines).some((l) => /error/i.test(l)),
      30_000,
      () => medusa.out.slice(lines).join('\n'),
    );
    gatewayProcess = await spawnGateway(['serve'], gatewayEnv);
    const { cart: still } = await ok<{ cart: { completed_at: string | null } }>(
      'GET',
      `/store/carts/${cart.id}`,
    );
    expect(still.completed_at).toBeNull();
    // the delivery resent: handed to Medusa again, which now completes the cart into the order
    await gateway.webhooks.resend(delivered.id);
    const orderId = await orderOf(cart.id);
    await waitUntil(async () => (await adminOrder(orderId)).payment_status === 'captured');
  });

  it('an unpaid Pix the buyer leaves for a card is cancelled at the gateway', async () => {
    const { collectionId, session } = await cartPaidBy({ method: 'pix', customer: BUYER });
    expect((await gateway.transactions.retrieve(session.data.saleId!)).status).toBe('PENDENTE');
    const tokenized = await gateway.cards.tokenize(CARD);
    await choosePayment(collectionId, { method: 'card', customer: BUYER, card: { token: tokenized.token } });
    expect((await gateway.transactions.retrieve(session.data.saleId!)).status).toBe('CANCELADO');
  });
});

async function paymentData(paymentId: string): Promise<Record<string, unknown>> {
  const { payment } = await ok<{ payment: { data: Record<string, unknown> } }>(
    'GET',
    `/admin/payments/${paymentId}?fields=id,data`,
  );
  return payment.data;
}
