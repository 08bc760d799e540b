import { type ChildProcess, spawn } from 'node:child_process';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../sdk/src/index.js';
import { EVENT_NAMES } from '../../src/webhooks/events.js';
import { saleInput } from '../sales/fixtures.js';
import { runGateway } from '../support/cli.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { recordFact, saleWebhookBody } from '../support/notifications.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';

const MAIN = path.resolve(import.meta.dirname, '../../dist/bundle/main.mjs');

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

const keysEnv = (m: TestMerchant, url = server.url) => ({
  GATEWAY_URL: url,
  GATEWAY_PUBLIC_KEY: m.publicKey,
  GATEWAY_PRIVATE_KEY: m.privateKey,
});

describe('gateway trigger', () => {
  it('makes each event happen for real and prints the ids of what it made', async () => {
    const m = await createMerchant(server);
    for (const event of EVENT_NAMES) {
      const r = await runGateway(['trigger', event, '--json'], keysEnv(m));
      expect(r.code, `${event}: ${r.stderr}`).toBe(0);
      const made = JSON.parse(r.stdout) as {
        event: string;
        sale?: string;
        withdrawal?: string;
        cart?: number;
      };
      expect(made.event).toBe(event);
      if (event.startsWith('sale.')) expect(made.sale).toMatch(/^[0-9a-f-]{36}$/);
      if (event.startsWith('withdrawal.')) expect(made.withdrawal).toMatch(/^[0-9a-f-]{36}$/);
      if (event.startsWith('cart.')) expect(made.cart).toBeGreaterThan(0);
      const events = await call<{ data: { type: string }[] }>(
        'GET',
        `${server.url}/api/events?type=${event}`,
        {
          headers: m.keys,
        },
      );
      expect(events.body.data.length, event).toBeGreaterThanOrEqual(1);
    }
    const text = await runGateway(['trigger', 'sale.paid'], keysEnv(m));
    expect(text.stdout).toMatch(/^triggered sale\.paid: sale [0-9a-f-]{36}\n$/);
  }, 180_000); // one `gateway trigger` process per event, one after another

  it('moves the caller’s own charge (--sale) and withdrawal (--withdrawal) instead of making new ones', async () => {
    const m = await createMerchant(server);
    const charge = await call<{ id: number; uuid: string }>('POST', `${server.url}/api/transactions`, {
      headers: m.keys,
      body: {
        amount: 50_000,
        paymentMethod: 'PIX',
        customer: {
          name: 'Maria Silva',
          email: 'maria@example.com',
          document: '52998224725',
          phone: '5511987654321',
        },
        items: [{ title: 'Pedido 1001', unitPrice: 50_000, quantity: 1, tangible: false }],
      },
    });
    expect(charge.status).toBe(201);
    const paid = await runGateway(['trigger', 'sale.paid', '--sale', charge.body.uuid, '--json'], keysEnv(m));
    expect(paid.code, paid.stderr).toBe(0);
    expect(JSON.parse(paid.stdout)).toEqual({ event: 'sale.paid', sale: charge.body.uuid });
    const sale = await call<{ status: string }>('GET', `${server.url}/api/transactions/${charge.body.uuid}`, {
      headers: m.keys,
    });
    expect(sale.body.status).toBe('PAGO');
    // by its numeric id too: a paid sale is refunded at once
    const refunded = await runGateway(
      ['trigger', 'sale.refunded', '--sale', String(charge.body.id)],
      keysEnv(m),
    );
    expect(refunded.code, refunded.stderr).toBe(0);
    expect(refunded.stdout).toBe(`triggered sale.refunded: sale ${charge.body.uuid}\n`);
    // a sale already in the event's status: nothing would happen, so it says so and fails (no event comes)
    const events = async () =>
      (
        await call<{ data: unknown[] }>('GET', `${server.url}/api/events?type=sale.refunded`, {
          headers: m.keys,
        })
      ).body.data.length;
    const before = await events();
    const again = await runGateway(['trigger', 'sale.refunded', '--sale', charge.body.uuid], keysEnv(m));
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toBe(
      `error: sale ${charge.body.uuid} is already ESTORNADO: no sale.refunded happens (give a sale that is not ESTORNADO yet, or trigger sale.refunded without --sale)`,
    );
    expect(await events()).toBe(before);

    const funding = await runGateway(['trigger', 'sale.paid', '--json'], keysEnv(m));
    expect(funding.code, funding.stderr).toBe(0);
    const cashout = await call<{ uuid: string }>('POST', `${server.url}/api/public/cashout`, {
      headers: m.keys,
      body: { amount: '100.00', pixKey: '52998224725', pixKeyType: 'CPF' },
    });
    expect(cashout.status).toBe(201);
    const done = await runGateway(
      ['trigger', 'withdrawal.completed', '--withdrawal', cashout.body.uuid],
      keysEnv(m),
    );
    expect(done.code, done.stderr).toBe(0);
    const w = await call<{ status: string }>('GET', `${server.url}/api/public/cashout/${cashout.body.uuid}`, {
      headers: m.keys,
    });
    expect(w.body.status).toBe('COMPLETED');

    for (const args of [
      ['sale.pending', '--sale', charge.body.uuid],
      ['withdrawal.completed', '--sale', charge.body.uuid],
      ['sale.paid', '--withdrawal', cashout.body.uuid],
      ['sale.paid', '--sale', charge.body.uuid, '--withdrawal', cashout.body.uuid],
      ['sale.paid', '--sale', charge.body.uuid, '--sale', charge.body.uuid],
    ]) {
      const r = await runGateway(['trigger', ...args], keysEnv(m));
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('says why in one line when it cannot: bad usage (exit 2), no sandbox or no keys (exit 1 / 2)', async () => {
    const m = await createMerchant(server);
    const unknown = await runGateway(['trigger', 'sale.nope'], keysEnv(m));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error: unknown event "sale.nope"/);
    const none = await runGateway(['trigger'], keysEnv(m));
    expect(none.code).toBe(2);
    const noKeys = await runGateway(['trigger', 'sale.paid'], { GATEWAY_URL: server.url });
    expect(noKeys.code).toBe(2);
    expect(noKeys.stderr).toMatch(/key pair is needed/);
    // a second gateway on the same database with the sandbox off: the own sale is made through the first
    const production = await startServer({
      databaseUrl: server.databaseUrl,
      env: { SANDBOX: 'false' },
      workers: false,
    });
    try {
      const p = await createMerchant(production);
      const off = await runGateway(['trigger', 'sale.paid'], keysEnv(p, production.url));
      expect(off.code).toBe(1);
      expect(off.stderr).toMatch(/no sandbox routes/);
      expect(off.stderr.trim().split('\n')).toHaveLength(1);
      // moving an own sale there says the same, not a bare "No route" 404
      const own = await call<{ uuid: string }>('POST', `${server.url}/api/transactions`, {
        headers: m.keys,
        body: saleInput(),
      });
      expect(own.status, own.text).toBe(201);
      const moved = await runGateway(
        ['trigger', 'sale.paid', '--sale', own.body.uuid],
        keysEnv(m, production.url),
      );
      expect(moved.code).toBe(1);
      expect(moved.stderr).toMatch(/no sandbox routes \(SANDBOX is off\)/);
      expect(moved.stderr.trim().split('\n')).toHaveLength(1);
    } finally {
      await production.close();
    }
  });

  it('says so when the account asks for a second approval of withdrawals, and leaves no money blocked', async () => {
    const m = await createMerchant(server);
    const rule = await call('PUT', `${server.url}/api/settings/withdrawal-approval`, {
      headers: m.panel,
      body: { thresholdCents: 10_000 },
    });
    expect(rule.status, rule.text).toBe(200);
    const r = await runGateway(['trigger', 'withdrawal.pending', '--json'], keysEnv(m));
    expect(r.code).toBe(1);
    // the account's threshold is not the trigger's amount: it says which is which, and to raise the threshold
    expect(r.stderr).toContain("this trigger's withdrawal of R$ 100,00 is one of them");
    expect(r.stderr).toContain('Raise the approval threshold above R$ 100,00');
    expect(r.stderr).toMatch(/cancelled and its money is available again/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    const balance = await call<{ blocked: number }>('GET', `${server.url}/api/public/balance`, {
      headers: m.keys,
    });
    expect(balance.body.blocked).toBe(0);
    // the key that asked for it took it back: it declined it, not an operator
    const list = await call<{ data: { status: string; approval: { decidedBy: string } | null }[] }>(
      'GET',
      `${server.url}/api/withdrawals`,
      { headers: m.panel },
    );
    expect(list.body.data[0]).toMatchObject({
      status: 'CANCELLED',
      approval: { decidedBy: `api_key:${m.publicKey}` },
    });
    // cancelling is what it can still make happen
    const canceled = await runGateway(['trigger', 'withdrawal.canceled', '--json'], keysEnv(m));
    expect(canceled.code, canceled.stderr).toBe(0);
  });

  it("runs after run under the card-testing limits in force: card events charge the trigger's saved cards", async () => {
    // the documented defaults: 5 tokenizations of a card an hour, 10 from an address a minute
    const limited = await startServer({
      workers: false,
      env: { RISK_CARD_ATTEMPTS_PER_CARD: '5', RISK_CARD_ATTEMPTS_PER_IP: '10' },
    });
    try {
      const m = await createMerchant(limited);
      const events = ['sale.chargeback', 'subscription.renewed', 'invoice.failed', 'subscription.past_due'];
      for (let round = 0; round < 4; round++) {
        for (const event of events) {
          const r = await runGateway(['trigger', event, '--json'], keysEnv(m, limited.url));
          expect(r.code, `${event}, round ${round + 1}: ${r.stderr}`).toBe(0);
        }
      }
      // one buyer, its two cards saved once
      const customers = await call<{ data: { email: string; cards: unknown[] }[] }>(
        'GET',
        `${limited.url}/api/customers?limit=100`,
        { headers: m.keys },
      );
      expect(customers.body.data.map((c) => [c.email, c.cards.length])).toEqual([
        ['maria.trigger@example.com', 2],
      ]);
    } finally {
      await limited.close();
    }
  }, 180_000);
});

/** A TCP proxy in front of the gateway whose open connections the test can cut, as a network would. */
async function cuttableProxy(target: string) {
  const { port, hostname } = new URL(target);
  const sockets = new Set<Socket>();
  const proxy: Server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    client.pipe(upstream).pipe(client);
    const both = [client, upstream];
    const destroyBoth = () => {
      for (const x of both) x.destroy();
    };
    for (const s of both) {
      sockets.add(s);
      s.on('error', destroyBoth);
      s.on('close', () => {
        sockets.delete(s);
        destroyBoth();
      });
    }
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    cut: () => {
      for (const s of sockets) s.destroy();
    },
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  };
}

function startListen(
  m: TestMerchant,
  url: string,
  forwardTo: string,
): { child: ChildProcess; out: string[] } {
  const out: string[] = [];
  const child = spawn(process.execPath, [MAIN, 'listen', '--forward-to', forwardTo], {
    env: { ...process.env, ...keysEnv(m, url), LOG_LEVEL: 'warn' },
  });
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => out.push(...chunk.split('\n').filter((l) => l !== '')));
  return { child, out };
}

describe('gateway refund', () => {
  it('refunds part of the caller’s sale, answers a repeat of its key with the same refund, and says why it refuses', async () => {
    const m = await createMerchant(server);
    const charge = await call<{ id: number; uuid: string }>('POST', `${server.url}/api/transactions`, {
      headers: m.keys,
      body: {
        amount: 10_000,
        paymentMethod: 'PIX',
        customer: {
          name: 'Maria Silva',
          email: 'maria@example.com',
          document: '52998224725',
          phone: '5511987654321',
        },
        items: [{ title: 'Pedido 1002', unitPrice: 10_000, quantity: 1, tangible: false }],
      },
    });
    expect(charge.status).toBe(201);
    expect((await runGateway(['trigger', 'sale.paid', '--sale', charge.body.uuid], keysEnv(m))).code).toBe(0);
    const args = [
      'refund',
      charge.body.uuid,
      '--amount-cents',
      '1500',
      '--idempotency-key',
      'pedido-1002-r1',
    ];
    const first = await runGateway(args, keysEnv(m));
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(
      new RegExp(
        `^refund \\S+ of 1500 cents: succeeded; sale ${charge.body.uuid}: PAGO, 1500 of 10000 cents refunded\n$`,
      ),
    );
    const again = await runGateway(args, keysEnv(m));
    expect(again.stdout).toMatch(
      /^refund \S+ of 1500 cents: succeeded \(the same refund as before: Idempotent-Replayed\); /,
    );
    expect(again.stdout).toContain('1500 of 10000 cents refunded');
    const over = await runGateway(['refund', String(charge.body.id), '--amount-cents', '9000'], keysEnv(m));
    expect(over.code).toBe(1);
    expect(over.stderr).toContain(
      'the refund was refused (422 MAXIMUM_VALUE): At most 8500 cents of this sale are left to refund',
    );
    const rest = await runGateway(['refund', charge.body.uuid, '--json'], keysEnv(m));
    expect(JSON.parse(rest.stdout)).toMatchObject({
      status: 'ESTORNADO',
      refundedAmount: 10000,
      refund: { amountCents: 8500, status: 'succeeded' },
      replayed: false,
    });
    const bad = await runGateway(['refund', charge.body.uuid, '--amount-cents', '1.5'], keysEnv(m));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--amount-cents must be a positive whole number of cents');
    // a negative amount reads to parseArgs as a forgotten value: said in the operator's words, not parseArgs'
    const negative = await runGateway(['refund', charge.body.uuid, '--amount-cents', '-5'], keysEnv(m));
    expect(negative.code).toBe(2);
    expect(negative.stderr).toContain('--amount-cents needs a value, and negative values are not accepted');
    expect(negative.stderr).not.toContain('ambiguous');
  });
});

describe('gateway listen', () => {
  it('checks the key pair before printing anything: a wrong key prints no "Ready" and no secret', async () => {
    const m = await createMerchant(server);
    const r = await runGateway(['listen', '--forward-to', `${receiver.url}/never`], {
      ...keysEnv(m),
      GATEWAY_PRIVATE_KEY: `${m.privateKey.slice(0, -4)}xxxx`,
    });
    expect(r.code).not.toBe(0);
    expect(r.stdout).not.toMatch(/Ready|whsec_/);
    expect(r.stderr).toMatch(/401/);
  });

  it('forwards every event signed with its stable whsec_ secret, one line each, and misses nothing across a dropped connection', async () => {
    const m = await createMerchant(server);
    const proxy = await cuttableProxy(server.url);
    const hook = `${receiver.url}/listen-${m.accountId}`;
    const { child, out } = startListen(m, proxy.url, hook);
    try {
      await waitUntil(() => out.some((l) => l.startsWith('Webhook signing secret: whsec_')), 15_000);
      const secret = out.find((l) => l.startsWith('Webhook signing secret: '))!.split(': ')[1]!;
      await new Promise((r) => setTimeout(r, 500)); // the stream is open
      const before = [
        await recordFact(server, m.accountId, 'sale.paid'),
        await recordFact(server, m.accountId, 'withdrawal.completed'),
      ];
      const mine = () => receiver.received.filter((r) => r.path === `/listen-${m.accountId}`);
      await waitUntil(() => mine().length === 2, 15_000);
      proxy.cut(); // the network drops the stream
      const during = [
        await recordFact(server, m.accountId, 'sale.refunded', {
          body: saleWebhookBody(m.accountId, 'ESTORNADO'),
        }),
        await recordFact(server, m.accountId, 'cart.abandoned'),
      ];
      await waitUntil(() => mine().length === 4, 30_000);
      await new Promise((r) => setTimeout(r, 300));
      const got = mine();
      expect(got.map((r) => r.headers['x-service-event-id'])).toEqual([...before, ...during]);
      for (const r of got) {
        const v = verifyWebhook({ body: r.body, headers: r.headers as Record<string, string>, secret });
        expect(v.eventId).toBe(r.headers['x-service-event-id']);
      }
      expect(out.some((l) => /connection (lost|closed)/.test(l))).toBe(true);
      for (const id of [...before, ...during]) {
        expect(out.some((l) => l.includes(id) && l.includes('[200]'))).toBe(true);
      }
      child.kill('SIGINT');
      const again = startListen(m, server.url, hook);
      await waitUntil(() => again.out.some((l) => l.startsWith('Webhook signing secret:')), 15_000);
      expect(again.out.find((l) => l.startsWith('Webhook signing secret:'))).toBe(
        `Webhook signing secret: ${secret}`,
      );
      again.child.kill('SIGINT');
      const other = await createMerchant(server);
      const third = startListen(other, server.url, hook);
      await waitUntil(() => third.out.some((l) => l.startsWith('Webhook signing secret:')), 15_000);
      expect(third.out.find((l) => l.startsWith('Webhook signing secret:'))).not.toBe(
        `Webhook signing secret: ${secret}`,
      );
      third.child.kill('SIGINT');
    } finally {
      child.kill('SIGKILL');
      await proxy.close();
    }
  });
});
