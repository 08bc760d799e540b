/**
 * The example shops, each run as its README line says (npm run example:shop, npm run example:shop-python) against
 * a real gateway: a PIX charge, its payment in the sandbox, the verified webhook that marks the order paid, a
 * partial refund and its webhook; a resent delivery changes nothing and a forged one is refused.
 */
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGateway } from '../support/cli.js';
import { createMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { freePort } from '../support/ports.js';
import { startServer, type TestServer } from '../support/server.js';
import { type Running, spawnCollecting } from '../support/snippets.js';
import { waitUntil } from '../support/wait.js';
import { createWebhook, deliveries } from '../support/webhooks.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
let server: TestServer;
const shops: Running[] = [];

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  for (const shop of shops) shop.stop();
  await server?.close();
});

describe.each([
  { name: 'examples/shop (TypeScript)', script: 'example:shop' },
  { name: 'examples/shop-python', script: 'example:shop-python' },
])('$name', ({ script }) => {
  it('charge → sandbox payment → verified webhook → order paid → partial refund → its webhook → order partly refunded', async () => {
    const merchant = await createMerchant(server);
    const port = await freePort();
    const shopUrl = `http://127.0.0.1:${port}`;
    const hook = await createWebhook(server, merchant, `${shopUrl}/webhooks`, ['sale.paid', 'sale.refunded']);
    // the command the README gives, with the shop's settings
    const shop = spawnCollecting('npm', ['run', '--silent', script], {
      cwd: ROOT,
      env: {
        ...process.env,
        GATEWAY_URL: server.url,
        GATEWAY_PUBLIC_KEY: merchant.publicKey,
        GATEWAY_PRIVATE_KEY: merchant.privateKey,
        GATEWAY_WEBHOOK_SECRET: hook.secret,
        SHOP_PORT: String(port),
        PYTHONDONTWRITEBYTECODE: '1',
      },
    });
    shops.push(shop);
    const out = shop.out;
    await waitUntil(
      () => out.some((l) => l.startsWith('shop on')),
      30_000,
      () => out.join('\n'),
    );

    expect((await call('GET', `${shopUrl}/`)).text).toContain('Comprar com PIX');
    const bought = await request(`${shopUrl}/checkout`, { method: 'POST' });
    expect(bought.statusCode).toBe(303);
    await bought.body.dump();
    const orderPath = String(bought.headers.location);
    const orderId = orderPath.split('/').pop()!;
    const orderPage = async () => (await call('GET', `${shopUrl}${orderPath}`)).text;
    const page = await orderPage();
    expect(page).toContain('<strong id="status">awaiting payment');
    expect(page).toContain('src="data:image/svg+xml');

    // the buyer pays: the shop says how in the sandbox (its log and the order page), and that command is run
    const said = out.find((l) => l.startsWith(`order ${orderId}: charge `));
    const command = /npx gateway trigger sale\.paid --sale ([0-9a-f-]{36})/.exec(said ?? '');
    expect(command, out.join('\n')).not.toBeNull();
    const saleUuid = command![1]!;
    expect(page).toContain(`npx gateway trigger sale.paid --sale ${saleUuid}`);
    const paid = await runGateway(['trigger', 'sale.paid', '--sale', saleUuid], {
      GATEWAY_URL: server.url,
      GATEWAY_PUBLIC_KEY: merchant.publicKey,
      GATEWAY_PRIVATE_KEY: merchant.privateKey,
    });
    expect(paid.code, paid.stderr).toBe(0);
    await waitUntil(
      async () => (await orderPage()).includes('<strong id="status">paid'),
      20_000,
      () => out.join('\n'),
    );
    expect(out).toContain(`order ${orderId}: paid`);

    // a part of it refunded from the order's page; the order changes when sale.refunded arrives
    expect(await orderPage()).toContain(`action="/orders/${orderId}/refund"`);
    // pressed twice at once: one refund (the second is the same refund by its Idempotency-Key, or the shop's 409)
    const presses = await Promise.all(
      [1, 2].map(() => request(`${shopUrl}/orders/${orderId}/refund`, { method: 'POST' })),
    );
    for (const press of presses) await press.body.dump();
    expect(presses.map((p) => p.statusCode)).toContain(303);
    expect(presses.every((p) => p.statusCode === 303 || p.statusCode === 409)).toBe(true);
    await waitUntil(
      async () => (await orderPage()).includes('<strong id="status">partly refunded'),
      20_000,
      () => out.join('\n'),
    );
    expect(await orderPage()).toMatch(/Devolvido: <span id="refunded">R\$\s10,00<\/span>/);
    expect(out).toContain(`order ${orderId}: partly refunded`);
    const sale = await call<{ status: string; refundedAmount: number }>(
      'GET',
      `${server.url}/api/transactions/${saleUuid}`,
      { headers: merchant.keys },
    );
    expect(sale.body).toMatchObject({ status: 'PAGO', refundedAmount: 1000 });
    const refunds = await call<unknown[]>('GET', `${server.url}/api/transactions/${saleUuid}/refunds`, {
      headers: merchant.keys,
    });
    expect(refunds.body).toHaveLength(1);
    // a second refund of the same order is the shop's refusal, not the gateway's
    const again = await request(`${shopUrl}/orders/${orderId}/refund`, { method: 'POST' });
    expect(again.statusCode).toBe(409);
    await again.body.dump();

    // the sale.paid delivery resent (same event id): answered 200, handled no second time. The shop logs an
    // event before it answers, so the refund's delivery may still be recorded as sent a moment after that line
    await waitUntil(
      async () => (await deliveries(server, merchant, hook.id)).every((d) => d.status !== 'PENDING'),
      10_000,
    );
    const log = await deliveries(server, merchant, hook.id);
    expect(log.map((d) => [d.event, d.status, d.statusCode]).sort()).toEqual([
      ['sale.paid', 'DELIVERED', 200],
      ['sale.refunded', 'DELIVERED', 200],
    ]);
    const paidDelivery = log.find((d) => d.event === 'sale.paid')!;
    // each event the shop handles logs the order's status (before it answers): the resend must log nothing
    const handled = () =>
      out.filter((l) => l.startsWith(`order ${orderId}: `) && !/charge|refund asked/.test(l));
    expect(handled()).toEqual([`order ${orderId}: paid`, `order ${orderId}: partly refunded`]);
    const resent = await call('POST', `${server.url}/api/webhook/deliveries/${paidDelivery.id}/resend`, {
      headers: merchant.panel,
    });
    expect(resent.status, resent.text).toBe(202);
    await waitUntil(async () => {
      const d = (await deliveries(server, merchant, hook.id)).find((e) => e.id === paidDelivery.id);
      return d?.attempts === 2 && d.status === 'DELIVERED' && d.statusCode === 200;
    }, 20_000);
    expect(handled()).toHaveLength(2);
    expect(await orderPage()).toContain('<strong id="status">partly refunded');

    // a forged notification is refused
    const forged = await call('POST', `${shopUrl}/webhooks`, {
      body: { eventType: 'sale.paid', status: 'PAGO' },
    });
    expect(forged.status).toBe(400);
    expect(out.filter((l) => l.startsWith('stderr:') && !/npm warn/.test(l))).toEqual([]);
  });
});
