/**
 * Issue 16, item 2: sales carry bounded data, so no list of them can make the server hold unbounded memory.
 * The attack as observed (delivery logs of the largest sales, 48 at once, limit=100) against a real gateway
 * process, its memory sampled from /proc while another merchant keeps reading its balance.
 */
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SALE_LIMITS } from '../../src/sales/input.js';
import { DELIVERY_PAGE_BYTES } from '../../src/webhooks/data.js';
import { CUSTOMER, saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { type ChildServer, spawnGateway, startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
import { createWebhook } from '../support/webhooks.js';

let setup: TestServer;
let gateway: ChildServer;
let attacker: TestMerchant;
let victim: TestMerchant;
let receiver: Receiver;

beforeAll(async () => {
  setup = await startServer({ workers: false });
  gateway = await spawnGateway(['serve'], { DATABASE_URL: setup.databaseUrl, DATA_DIR: setup.env.DATA_DIR! });
  attacker = await createMerchant(setup);
  victim = await createMerchant(setup);
  receiver = await startReceiver();
});
afterAll(async () => {
  await gateway?.stop();
  await receiver?.close();
  await setup?.close();
});

/** A sale at the documented maximum: 100 items with 200-character titles and a 4 KiB shipping object. */
function largestSale() {
  const items = Array.from({ length: 100 }, (_, i) => ({
    title: `${i}`.padEnd(200, 'x'),
    unitPrice: 100,
    quantity: 1,
    tangible: true,
  }));
  const shipping: Record<string, string> = {};
  for (let i = 0; Buffer.byteLength(JSON.stringify(shipping)) < SALE_LIMITS.shippingBytes - 120; i++) {
    shipping[`line${i}`] = 'Rua das Flores, 123 — apto 45'.padEnd(90, '.');
  }
  return saleInput({ amount: 10_000, items, shipping });
}

const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

describe('bounded sales', () => {
  it('refuses a sale beyond the limits with 400 in the route’s shape, writing nothing', async () => {
    const count = async () =>
      (await setup.runtime.platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM sales'))[0]!.n;
    const before = await count();
    const huge = { street: 'x'.repeat(SALE_LIMITS.shippingBytes) };
    const deep = { a: { b: { c: { d: { e: 'too deep' } } } } };
    // 200 characters of two UTF-8 bytes each: within every per-field limit, over the whole-sale limit
    const longItems = Array.from({ length: 100 }, () => ({
      title: 'ç'.repeat(200),
      unitPrice: 100,
      quantity: 1,
      tangible: true,
    }));
    for (const [path, body, shape] of [
      ['/api/transactions', saleInput({ shipping: huge }), 'D'],
      ['/api/sandbox/sales', saleInput({ shipping: huge }), 'A'],
      ['/api/sandbox/sales', saleInput({ shipping: deep }), 'A'],
      ['/api/sandbox/sales', saleInput({ amount: 10_000, items: longItems, customer: CUSTOMER }), 'A'],
    ] as const) {
      const res = await call<Record<string, unknown>>('POST', `${gateway.url}${path}`, {
        headers: attacker.keys,
        body,
      });
      expect(res.status, `${path} ${res.text.slice(0, 200)}`).toBe(400);
      if (shape === 'D') expect(res.body).toEqual({ message: expect.any(String), error: 'VALIDATION_ERROR' });
      else expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    }
    expect(await count()).toBe(before);
  });

  it('48 delivery logs of 100 of the largest sales at once: memory stays bounded, another merchant is served', async () => {
    const hook = await createWebhook(setup, attacker, receiver.url, ['*']);
    for (let i = 0; i < 100; i++) {
      const res = await call('POST', `${gateway.url}/api/sandbox/sales`, {
        headers: attacker.keys,
        body: largestSale(),
      });
      expect(res.status, res.text).toBe(201);
    }
    await receiver.waitFor(100, 60_000);
    const list = await call<unknown[]>('GET', `${gateway.url}/api/webhook/${hook.id}/deliveries?limit=100`, {
      headers: attacker.panel,
    });
    expect(list.status).toBe(200);
    // newest first, cut at DELIVERY_PAGE_BYTES of payloads: fewer than `limit` entries of the largest sales
    expect(list.body.length).toBeGreaterThan(1);
    expect(list.body.length).toBeLessThan(100);
    expect(Buffer.byteLength(list.text)).toBeLessThan(DELIVERY_PAGE_BYTES + 100 * 1024);
    expect(Buffer.byteLength(list.text)).toBeGreaterThan(DELIVERY_PAGE_BYTES / 2);

    const pid = gateway.process.pid!;
    const before = rssKb(pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssKb(pid));
    }, 20);
    let attacking = true;
    // the attack runs on a thread of its own: answers it reads do not delay the victim's timings here
    const attack = runOnThread(
      `
      const { url, headers } = require('node:worker_threads').workerData;
      const one = async () => {
        for (let round = 0; round < 5; round++) {
          const res = await fetch(url, { headers });
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error('delivery log answered ' + res.status);
        }
      };
      Promise.all(Array.from({ length: 48 }, one)).then(
        () => require('node:worker_threads').parentPort.postMessage('done'),
        (err) => { throw err; },
      );`,
      { url: `${gateway.url}/api/webhook/${hook.id}/deliveries?limit=100`, headers: attacker.panel },
    );
    const victimTimes: number[] = [];
    const victimCalls = (async () => {
      while (attacking) {
        const t = performance.now();
        const res = await call('GET', `${gateway.url}/api/public/balance`, { headers: victim.keys });
        victimTimes.push(performance.now() - t);
        expect(res.status).toBe(200);
      }
    })();
    await attack;
    attacking = false;
    await victimCalls;
    clearInterval(sampler);
    victimTimes.sort((a, b) => a - b);
    const p99 = victimTimes[Math.floor(victimTimes.length * 0.99)] ?? 0;
    console.log(
      `delivery-log attack: gateway RSS ${(before / 1024).toFixed(0)} MB before, peak ${(peak / 1024).toFixed(0)} MB; victim balance calls ${victimTimes.length}, p99 ${p99.toFixed(0)} ms`,
    );
    expect(victimTimes.length).toBeGreaterThan(0);
    expect(peak / 1024).toBeLessThan(300);
    await waitUntil(() => receiver.received.length >= 100);
  });
});

/** Runs CommonJS `code` on a worker thread; resolves when it posts a message, rejects if it throws. */
function runOnThread(code: string, workerData: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData });
    worker.once('message', () => {
      resolve();
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}
