import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runGateway } from '../support/cli.js';
import { createMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
import { createWebhook } from '../support/webhooks.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
let server: TestServer;
let shop: ChildProcess | undefined;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  shop?.kill('SIGKILL');
  await server?.close();
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

it('examples/shop: charge → sandbox payment → verified webhook → order paid', async () => {
  const merchant = await createMerchant(server);
  const port = await freePort();
  const shopUrl = `http://127.0.0.1:${port}`;
  const hook = await createWebhook(server, merchant, `${shopUrl}/webhooks`, ['sale.paid']);
  const out: string[] = [];
  // the command the README gives, with the shop's settings
  shop = spawn('npm', ['run', '--silent', 'example:shop'], {
    cwd: ROOT,
    env: {
      ...process.env,
      GATEWAY_URL: server.url,
      GATEWAY_PUBLIC_KEY: merchant.publicKey,
      GATEWAY_PRIVATE_KEY: merchant.privateKey,
      GATEWAY_WEBHOOK_SECRET: hook.secret,
      SHOP_PORT: String(port),
    },
  });
  shop.stdout!.setEncoding('utf8');
  shop.stdout!.on('data', (c: string) => out.push(...c.split('\n').filter(Boolean)));
  shop.stderr!.on('data', (c: Buffer) => out.push(`stderr: ${c}`));
  await waitUntil(() => out.some((l) => l.startsWith('shop on')), 30_000);

  expect((await call('GET', `${shopUrl}/`)).text).toContain('Comprar com PIX');
  const bought = await request(`${shopUrl}/checkout`, { method: 'POST' });
  expect(bought.statusCode).toBe(303);
  await bought.body.dump();
  const orderPath = String(bought.headers.location);
  const orderId = orderPath.split('/').pop()!;
  const page = await call('GET', `${shopUrl}${orderPath}`);
  expect(page.text).toContain('awaiting payment');
  expect(page.text).toContain('src="data:image/svg+xml');

  // the buyer pays: the shop says how in the sandbox (its log and the order page), and that command is run
  const said = out.find((l) => l.startsWith(`order ${orderId}: charge `));
  const command = /npx gateway trigger sale\.paid --sale ([0-9a-f-]{36})/.exec(said ?? '');
  expect(command, out.join('\n')).not.toBeNull();
  expect(page.text).toContain(`npx gateway trigger sale.paid --sale ${command![1]}`);
  const paid = await runGateway(['trigger', 'sale.paid', '--sale', command![1]!], {
    GATEWAY_URL: server.url,
    GATEWAY_PUBLIC_KEY: merchant.publicKey,
    GATEWAY_PRIVATE_KEY: merchant.privateKey,
  });
  expect(paid.code, paid.stderr).toBe(0);
  await waitUntil(
    async () => (await call('GET', `${shopUrl}${orderPath}`)).text.includes('<strong id="status">paid'),
    20_000,
  );
  expect(out.some((l) => l === `sale.paid for order ${orderId}: paid`)).toBe(true);

  // a forged notification is refused
  const forged = await call('POST', `${shopUrl}/webhooks`, { body: { type: 'TRANSACTION', status: 'PAGO' } });
  expect(forged.status).toBe(400);
});
