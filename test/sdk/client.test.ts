import { execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EventIdDeduplicator,
  Gateway,
  GatewayConnectionError,
  GatewayError,
  verifyWebhook,
  WebhookVerificationError,
} from '../../sdk/src/index.js';
import { moveTo, saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { fundMerchant } from '../support/ledger.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { createWebhook } from '../support/webhooks.js';

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  server = await startServer();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

const gatewayFor = (
  m: TestMerchant,
  baseUrl = server.url,
  extra: { maxRetries?: number; timeoutMs?: number } = {},
) => new Gateway({ baseUrl, publicKey: m.publicKey, privateKey: m.privateKey, ...extra });

interface Seen {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
}

/**
 * A real HTTP proxy in front of the gateway that plays a troubled network: `plan` says, per request, whether
 * to forward it or answer something else; every request is recorded.
 */
async function troubledProxy(
  plan: (seen: Seen, n: number) => 'forward' | 'drop' | { status: number; retryAfter?: string },
) {
  const seen: Seen[] = [];
  const proxy: Server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const entry = {
      method: req.method!,
      path: req.url!,
      idempotencyKey: req.headers['idempotency-key'] as string | undefined,
    };
    seen.push(entry);
    const step = plan(entry, seen.length);
    if (step === 'drop') {
      req.socket.destroy();
      return;
    }
    if (step !== 'forward') {
      res.writeHead(step.status, {
        'content-type': 'application/json',
        ...(step.retryAfter ? { 'retry-after': step.retryAfter } : {}),
      });
      res.end(JSON.stringify({ message: 'Service unavailable', error: 'SERVICE_UNAVAILABLE' }));
      return;
    }
    const headers = { ...req.headers };
    delete headers.host;
    const upstream = await request(`${server.url}${req.url}`, {
      method: req.method as 'GET',
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    res.writeHead(upstream.statusCode, upstream.headers as Record<string, string>);
    res.end(Buffer.from(await upstream.body.arrayBuffer()));
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((resolve) => proxy.close(() => resolve())) };
}

describe('@payment-gateway/sdk against a real gateway', () => {
  it('creates, lists, reads and turns off a payment link, and opens and reads a checkout session', async () => {
    const gw = gatewayFor(await createMerchant(server));
    const link = await gw.paymentLinks.create({
      title: 'Curso de fotografia',
      amountCents: 19900,
      methods: ['PIX'],
    });
    expect(link.url.endsWith(`/pay/${link.slug}`)).toBe(true);
    expect(link).toMatchObject({ active: true, uses: 0 });
    expect(await gw.paymentLinks.retrieve(link.id)).toEqual(link);
    expect((await gw.paymentLinks.list({ limit: 100 })).data.map((l) => l.id)).toContain(link.id);
    expect(await gw.paymentLinks.update(link.id, { active: false })).toMatchObject({
      id: link.id,
      active: false,
    });
    const session = await gw.checkout.sessions.create({
      amountCents: 4990,
      items: [{ title: 'Camiseta', unitPrice: 4990, quantity: 1, tangible: true }],
      methods: ['PIX'],
      successUrl: 'https://loja.example.com/obrigado',
    });
    expect(session).toMatchObject({ status: 'open', saleId: null });
    expect(await gw.checkout.sessions.retrieve(session.id)).toEqual(session);
  });

  it('reads the balance, creates and retrieves a cashout, and creates, retrieves and lists a charge', async () => {
    const m = await createMerchant(server);
    await fundMerchant(server.runtime.platform.db, m.accountId, 50_000);
    const gw = gatewayFor(m);
    expect(await gw.balance.retrieve()).toEqual({
      available: 50_000,
      blocked: 0,
      total: 50_000,
      receivable: 0,
    });
    const created = await gw.cashouts.create({ amount: 150, pixKey: '52998224725', pixKeyType: 'CPF' });
    expect(created).toMatchObject({ status: 'PENDING' });
    expect(await gw.cashouts.retrieve(created.uuid)).toMatchObject({ id: created.id, uuid: created.uuid });

    const charge = await gw.transactions.create(saleInput() as never);
    const saleId = (charge as { id: number }).id;
    expect(await gw.transactions.retrieve(saleId)).toMatchObject({ id: saleId, status: 'PENDENTE' });
    const page = await gw.events.list({ type: ['sale.pending', 'withdrawal.pending'], limit: 1 });
    expect(page.data).toHaveLength(1);
    const all: string[] = [];
    for await (const event of gw.events.iterate({ type: 'sale.pending' })) all.push(event.id);
    expect(all.length).toBeGreaterThanOrEqual(1);
    expect((await gw.events.retrieve(all[0]!)).id).toBe(all[0]);
  });

  it('captures part of an authorized card sale, and lists the installments it will bring by date', async () => {
    const m = await createMerchant(server);
    const gw = gatewayFor(m);
    const tok = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
      headers: { 'x-api-public-key': m.publicKey },
      body: {
        number: '4111111111111111',
        holderName: 'MARIA SILVA',
        expMonth: 12,
        expYear: new Date().getUTCFullYear() + 1,
        cvv: '123',
      },
    });
    expect(tok.status, tok.text).toBe(201);
    const sale = (await gw.transactions.create(
      saleInput({
        amount: 10_000,
        paymentMethod: 'CREDIT_CARD',
        card: { token: tok.body.token },
        installments: 2,
        capture: false,
      }) as never,
    )) as { id: number; status: string };
    expect(sale.status).toBe('EM_PROCESSAMENTO');
    const captured = await gw.transactions.capture(sale.id, { amountCents: 8_000 });
    expect(captured).toMatchObject({ id: sale.id, status: 'PAGO', amount: 8_000 });
    const page = await gw.receivables.list();
    const installments = page.data.flatMap((d) => d.installments);
    expect(installments.filter((i) => i.saleUuid === (captured as { uuid: string }).uuid)).toHaveLength(2);
    // an anticipation of them, asked twice with one key (a retry): one anticipation
    const asked = await gw.anticipations.create({ amountCents: 1_000 }, { idempotencyKey: `ant-${sale.id}` });
    const again = await gw.anticipations.create({ amountCents: 1_000 }, { idempotencyKey: `ant-${sale.id}` });
    expect((again as { id: unknown }).id).toBe((asked as { id: unknown }).id);
    expect((await gw.anticipations.list()).data).toHaveLength(1);
  });

  it('refunds part of a paid charge with a key (a repeat is the same refund), then the rest', async () => {
    const m = await createMerchant(server);
    const gw = gatewayFor(m);
    const charge = (await gw.transactions.create(saleInput({ amount: 10_000 }) as never)) as { id: number };
    expect((await moveTo(server, m, charge.id, 'PAGO')).status).toBe(200);
    const part = await gw.transactions.refund(charge.id, {
      amountCents: 1000,
      idempotencyKey: 'pedido-1-r1',
    });
    expect(part).toMatchObject({ id: charge.id, status: 'PAGO', refundedAmount: 1000 });
    const again = await gw.transactions.refund(charge.id, {
      amountCents: 1000,
      idempotencyKey: 'pedido-1-r1',
    });
    expect(again.refundedAmount).toBe(1000);
    expect(await gw.transactions.refund(charge.id)).toMatchObject({
      status: 'ESTORNADO',
      refundedAmount: 10_000,
    });
  });

  it('lists sales page by page, cancels a pending charge, lists refunds, pays in the sandbox, manages webhooks', async () => {
    const m = await createMerchant(server);
    const gw = gatewayFor(m);
    const made: number[] = [];
    for (let i = 0; i < 3; i++) {
      made.push(
        ((await gw.transactions.create(saleInput({ amount: 1000 + i }) as never)) as { id: number }).id,
      );
    }
    const seen: number[] = [];
    for await (const sale of gw.transactions.iterate({ limit: 2 })) seen.push(sale.id);
    expect(seen).toEqual([...made].reverse());
    expect((await gw.transactions.list({ status: 'PENDENTE', limit: 1 })).nextCursor).not.toBeNull();
    expect(await gw.transactions.cancel(made[0]!)).toMatchObject({ id: made[0], status: 'CANCELADO' });
    expect(await gw.sandbox.pay(made[1]!)).toMatchObject({ id: made[1], status: 'PAGO' });
    await gw.transactions.refund(made[1]!, { amountCents: 300 });
    expect((await gw.transactions.refunds(made[1]!)).map((r) => r.amountCents)).toEqual([300]);
    expect(await gw.refunds.list(made[1]!)).toEqual(await gw.transactions.refunds(made[1]!));
    const hook = await gw.webhooks.create({
      webhookUrl: 'https://loja.example.com/hooks',
      events: ['sale.paid'],
    });
    expect(hook.secret).toMatch(/^whsec_/);
    expect((await gw.webhooks.list()).map((w) => w.id)).toEqual([hook.id]);
    await gw.webhooks.delete(hook.id);
    expect(await gw.webhooks.list()).toEqual([]);
    const dedup = new EventIdDeduplicator();
    expect([dedup.firstTime('evt_1'), dedup.firstTime('evt_1'), dedup.firstTime('evt_2')]).toEqual([
      true,
      false,
      true,
    ]);
  });

  it('saves a card for a customer and bills it by subscription: a plan, a charge per period, a cancellation', async () => {
    const m = await createMerchant(server);
    const gw = gatewayFor(m);
    const customer = await gw.customers.create({
      name: 'Ana Souza',
      email: 'ana@example.com',
      document: '52998224725',
    });
    const tok = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
      headers: { 'x-api-public-key': m.publicKey },
      body: {
        number: '4111111111111111',
        holderName: 'ANA SOUZA',
        expMonth: 12,
        expYear: new Date().getUTCFullYear() + 1,
        cvv: '123',
      },
    });
    const card = await gw.customers.saveCard(customer.id, tok.body.token);
    expect((await gw.customers.retrieve(customer.id)).cards.map((c) => c.id)).toEqual([card.id]);
    const plan = await gw.plans.create({
      name: 'Academia',
      amountCents: 9990,
      interval: 'month',
      methods: ['CREDIT_CARD'],
    });
    expect((await gw.plans.list()).data.map((p) => p.id)).toContain(plan.id);
    // starting after tomorrow: the running scheduler leaves its first charge to advance
    const startDate = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    const sub = await gw.subscriptions.create({
      customerId: customer.id,
      planId: plan.id,
      paymentMethod: 'CREDIT_CARD',
      cardId: card.id,
      startDate,
    });
    // incomplete until its first period is paid
    expect(sub).toMatchObject({ status: 'incomplete', currentPeriodStart: startDate });
    const charged = await gw.sandbox.advanceSubscription(sub.id);
    expect(charged.status).toBe('active');
    const sales = (await gw.transactions.list({ limit: 100 })).data.filter(
      (s) => s.subscriptionId === sub.id,
    );
    expect(sales.map((s) => s.status)).toEqual(['PAGO']);
    expect(
      (await gw.subscriptions.list({ customerId: customer.id, status: 'active' })).data.map((s) => s.id),
    ).toEqual([sub.id]);
    expect((await gw.subscriptions.cancel(sub.id)).status).toBe('canceled');
    await gw.customers.deleteCard(customer.id, card.id);
  });

  it('retries a 503 with Retry-After with the same generated Idempotency-Key: one withdrawal', async () => {
    const m = await createMerchant(server);
    await fundMerchant(server.runtime.platform.db, m.accountId, 50_000);
    const proxy = await troubledProxy((_, n) => (n === 1 ? { status: 503, retryAfter: '1' } : 'forward'));
    try {
      const started = Date.now();
      const created = await gatewayFor(m, proxy.url).cashouts.create({ amount: 100, pixKey: '52998224725' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(950); // waited as Retry-After said
      expect(proxy.seen).toHaveLength(2);
      expect(proxy.seen[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
      expect(proxy.seen[1]!.idempotencyKey).toBe(proxy.seen[0]!.idempotencyKey);
      const rows = await server.runtime.platform.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM withdrawals WHERE account_id = $1',
        [m.accountId],
      );
      expect(rows[0]!.n).toBe(1);
      expect(created).toMatchObject({ status: 'PENDING' });
    } finally {
      await proxy.close();
    }
  });

  it('retries a dropped connection on a read, never a POST without a key, and gives up after maxRetries', async () => {
    const m = await createMerchant(server);
    const dropFirst = await troubledProxy((_, n) => (n === 1 ? 'drop' : 'forward'));
    try {
      expect(await gatewayFor(m, dropFirst.url).balance.retrieve()).toMatchObject({ total: 0 });
      expect(dropFirst.seen).toHaveLength(2);
    } finally {
      await dropFirst.close();
    }
    const always503 = await troubledProxy(() => ({ status: 503, retryAfter: '0' }));
    try {
      const link = gatewayFor(m, always503.url).paymentLinks.create({
        title: 'Curso',
        amountCents: 1000,
        methods: ['PIX'],
      } as never);
      await expect(link).rejects.toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
      expect(always503.seen).toHaveLength(1); // a POST without an Idempotency-Key is never repeated
      await expect(gatewayFor(m, always503.url, { maxRetries: 2 }).balance.retrieve()).rejects.toBeInstanceOf(
        GatewayError,
      );
      expect(always503.seen).toHaveLength(1 + 3);
    } finally {
      await always503.close();
    }
  });

  it('throws GatewayConnectionError when nothing answers, after its retries', async () => {
    const m = await createMerchant(server);
    // a port that was listening a moment ago and is closed now: connections are refused
    const gone = createServer();
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    const port = (gone.address() as AddressInfo).port;
    await new Promise<void>((resolve) => gone.close(() => resolve()));
    const failed = await gatewayFor(m, `http://127.0.0.1:${port}`, { maxRetries: 1 })
      .balance.retrieve()
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(GatewayConnectionError);
    expect(failed).not.toBeInstanceOf(GatewayError);
    expect((failed as Error).message).toBe(
      `GET /api/public/balance: no answer from http://127.0.0.1:${port}`,
    );
    expect((failed as Error).cause).toBeInstanceOf(Error);
  });

  it('tells an address without its scheme, and a number JSON cannot carry, before sending anything', async () => {
    const m = await createMerchant(server);
    expect(() => gatewayFor(m, server.url.replace(/^http:\/\//, ''))).toThrow(
      `baseUrl must be the gateway's address with its scheme, such as http://localhost:3000, not "${server.url.replace(/^http:\/\//, '')}"`,
    );
    const gw = gatewayFor(m);
    const before = await gw.transactions.list({ limit: 100 });
    await expect(gw.transactions.create({ ...saleInput(), amount: Number.NaN } as never)).rejects.toThrow(
      'amount must be a finite number, not NaN',
    );
    await expect(
      gw.cashouts.create({ amountCents: Number.POSITIVE_INFINITY, pixKey: '52998224725' }),
    ).rejects.toThrow(TypeError);
    expect((await gw.transactions.list({ limit: 100 })).data).toHaveLength(before.data.length);
  });

  it('never follows a redirect with the keys: a 3xx is a GatewayError, and the other origin hears nothing', async () => {
    const m = await createMerchant(server);
    const heard: string[] = [];
    const elsewhere = createServer((req, res) => {
      heard.push(String(req.headers['x-api-private-key'] ?? ''));
      res.end('{}');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    const to = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
    const redirecting = createServer((req, res) => {
      res.writeHead(302, { location: `${to}${req.url}` }).end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    try {
      const from = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`;
      const failed = await gatewayFor(m, from)
        .balance.retrieve()
        .catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(GatewayError);
      expect((failed as GatewayError).status).toBe(302);
      expect(heard).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => redirecting.close(() => resolve()));
      await new Promise<void>((resolve) => elsewhere.close(() => resolve()));
    }
  });

  it('resumes the event stream after the last event read (lastEventId): the events since come first', async () => {
    const m = await createMerchant(server);
    const gw = gatewayFor(m);
    const first = await gw.sandbox.createSale(saleInput() as never);
    await moveTo(server, m, (first as { uuid: string }).uuid, 'PAGO');
    const [seen] = (await gw.events.list({ type: 'sale.paid' })).data;
    // two more sales paid while no stream is open
    const later: string[] = [];
    for (let i = 0; i < 2; i++) {
      const sale = (await gw.sandbox.createSale(saleInput() as never)) as { uuid: string };
      await moveTo(server, m, sale.uuid, 'PAGO');
      later.push(sale.uuid);
    }
    const stop = new AbortController();
    const res = await gw.events.stream({ type: 'sale.paid', lastEventId: seen!.id, signal: stop.signal });
    const reader = res.body!.getReader();
    let text = '';
    while ((text.match(/^id: /gm) ?? []).length < 2) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    stop.abort();
    // the two paid after the last one read, in order, and not that one again
    expect(text).not.toContain(`id: ${seen!.id}\n`);
    expect(later.map((uuid) => text.indexOf(uuid))).toEqual([expect.any(Number), expect.any(Number)]);
    const [a, b] = later.map((uuid) => text.indexOf(uuid));
    expect(a).toBeGreaterThan(-1);
    expect(b).toBeGreaterThan(a!);
  });

  it('throws GatewayError with the code of whichever error shape, the request id and the body', async () => {
    const m = await createMerchant(server);
    const gw = gatewayFor(m);
    const bad = await gw.cashouts.create({ amount: 'abc', pixKey: '1' } as never).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(GatewayError);
    expect(bad).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' }); // shape D {message, error}
    expect((bad as GatewayError).requestId).toMatch(/.+/);
    const poor = await gw.cashouts.create({ amount: 150, pixKey: '52998224725' }).catch((e: unknown) => e);
    expect(poor).toMatchObject({ status: 422, code: 'INSUFFICIENT_BALANCE' }); // shape C {message, errorType}
    const missing = await gw.events.retrieve('0190a000-0000-7000-8000-000000000000').catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND', body: { success: false } }); // shape A
    const stranger = new Gateway({ baseUrl: server.url, publicKey: 'pk_x', privateKey: 'sk_x' });
    await expect(stranger.balance.retrieve()).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' }); // E
  });

  it('verifies a real delivery with verifyWebhook, and refuses a tampered one', async () => {
    const m = await createMerchant(server);
    const hook = await createWebhook(server, m, `${receiver.url}/sdk-${m.accountId}`, ['sale.paid']);
    const sale = await createSale(m);
    expect((await moveTo(server, m, sale, 'PAGO')).status).toBe(200);
    await expect.poll(() => receiver.received.filter((r) => r.path === `/sdk-${m.accountId}`).length).toBe(1);
    const got = receiver.received.find((r) => r.path === `/sdk-${m.accountId}`)!;
    const verified = verifyWebhook<{ id: number; status: string }>({
      body: got.body,
      headers: got.headers as Record<string, string>,
      secret: hook.secret,
    });
    expect(verified).toMatchObject({ eventId: got.headers['x-service-event-id'], eventType: 'sale.paid' });
    expect(verified.payload.status).toBe('PAGO');
    const headers = new Headers(got.headers as Record<string, string>);
    expect(verifyWebhook({ body: new Uint8Array(got.body), headers, secret: hook.secret }).eventId).toBe(
      verified.eventId,
    );
    const tampered = Buffer.from(got.body.toString('utf8').replace('"PAGO"', '"ESTORNADO"'));
    expect(() => verifyWebhook({ body: tampered, headers, secret: hook.secret })).toThrow(
      WebhookVerificationError,
    );
    expect(() => verifyWebhook({ body: got.body, headers, secret: 'whsec_AAAA' })).toThrow(
      WebhookVerificationError,
    );
    const relabelled = new Headers(headers);
    relabelled.set('x-service-event-type', 'sale.refunded');
    expect(() => verifyWebhook({ body: got.body, headers: relabelled, secret: hook.secret })).toThrow(
      /does not match the signed body/,
    );
  });

  it('packs as an installable package exposing the documented names', async () => {
    const sdk = path.resolve(import.meta.dirname, '../../sdk');
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: sdk, encoding: 'utf8' }),
    ) as {
      name: string;
      files: { path: string }[];
    }[];
    expect(packed!.name).toBe('@payment-gateway/sdk');
    const files = packed!.files.map((f) => f.path);
    expect(files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'package.json']));
    const built = (await import(path.join(sdk, 'dist', 'index.js'))) as Record<string, unknown>;
    expect(Object.keys(built).sort()).toEqual([
      'EventIdDeduplicator',
      'Gateway',
      'GatewayConnectionError',
      'GatewayError',
      'ROUTES',
      'WebhookVerificationError',
      'handleWebhook',
      'isSaleEvent',
      'verifyWebhook',
      'webhookHandler',
    ]);
  });
});

async function createSale(m: TestMerchant): Promise<number> {
  const charge = await gatewayFor(m).transactions.create(saleInput() as never);
  return (charge as { id: number }).id;
}
