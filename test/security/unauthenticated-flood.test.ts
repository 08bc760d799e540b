/**
 * The payer's boleto PDF link needs no key: fetched by the hundred from one address it must neither render the
 * PDF each time nor slow another merchant down. The flood runs on a thread of its own against a real gateway
 * process, and another merchant's balance is read while it runs and, alternately, while it does not.
 */
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boletoInput } from '../boletos/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { type ChildServer, spawnGateway, startServer, type TestServer } from '../support/server.js';

let setup: TestServer;
let gateway: ChildServer;
let payee: TestMerchant;
let victim: TestMerchant;
let pdfPath: string;

beforeAll(async () => {
  setup = await startServer({ workers: false });
  gateway = await spawnGateway(['serve'], {
    DATABASE_URL: setup.databaseUrl,
    DATA_DIR: setup.env.DATA_DIR!,
    RATE_LIMIT_BOLETO_PDF_PER_IP: '30',
  });
  payee = await createMerchant(setup);
  victim = await createMerchant(setup);
  const sale = await call<{ boleto: { pdfUrl: string } }>('POST', `${gateway.url}/api/transactions`, {
    headers: payee.keys,
    body: boletoInput(),
  });
  expect(sale.status, sale.text).toBe(201);
  pdfPath = new URL(sale.body.boleto.pdfUrl).pathname;
});
afterAll(async () => {
  await gateway?.stop();
  await setup?.close();
});

const p99 = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!;
};

async function balanceTimes(count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    const res = await call('GET', `${gateway.url}/api/public/balance`, { headers: victim.keys });
    times.push(performance.now() - t);
    expect(res.status).toBe(200);
  }
  return times;
}

describe("the payer's boleto PDF link under a flood from one address", () => {
  it('is rendered once and kept: the same bytes a second later (a new render would carry a new date)', async () => {
    const first = await fetch(`${gateway.url}${pdfPath}`);
    const a = Buffer.from(await first.arrayBuffer());
    await new Promise((r) => setTimeout(r, 1100));
    const second = await fetch(`${gateway.url}${pdfPath}`);
    const b = Buffer.from(await second.arrayBuffer());
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(a.subarray(0, 5).toString()).toBe('%PDF-');
    expect(b.equals(a)).toBe(true);
  });

  it('48 clients at once from one address: 429 past its budget; another merchant’s balance served meanwhile (p99 against idle printed)', async () => {
    await balanceTimes(50); // warm
    // the flood is switched on and off: idle and flooded samples alternate, so that both meet whatever else
    // this machine is doing meanwhile
    const flood = new FloodThread(`${gateway.url}${pdfPath}`);
    const idle: number[] = [];
    const underFlood: number[] = [];
    for (let round = 0; round < 5; round++) {
      idle.push(...(await balanceTimes(80)));
      await flood.ask('start');
      await new Promise((r) => setTimeout(r, 100));
      underFlood.push(...(await balanceTimes(80)));
      await flood.ask('stop'); // waits for its requests in flight
    }
    const result = (await flood.ask('end')) as { statuses: Record<string, number>; sent: number };
    const ratio = p99(underFlood) / p99(idle);
    console.log(
      `boleto PDF flood: ${result.sent} fetches (${JSON.stringify(result.statuses)}); victim balance p99 idle ${p99(idle).toFixed(1)} ms, during the flood ${p99(underFlood).toFixed(1)} ms (${underFlood.length} calls each): ×${ratio.toFixed(2)}`,
    );
    expect(result.statuses['200'] ?? 0).toBeLessThanOrEqual(30);
    expect(result.statuses['429']).toBeGreaterThan(0);
    expect(Object.keys(result.statuses).sort()).toEqual(result.statuses['200'] ? ['200', '429'] : ['429']);
    // the ratio is printed, not asserted: a shared 2-core machine moves p99 more than the flood does
  });

  it('answers 429 shape D with Retry-After past the address’s budget; another address is served', async () => {
    const limited = await call('GET', `${gateway.url}${pdfPath}`, { localAddress: '127.0.0.9' });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'RATE_LIMITED', message: expect.stringMatching(/^Too many/) });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.headers['ratelimit-limit']).toBe('30');
    const elsewhere = await fetch(`${gateway.url}${pdfPath}`);
    expect(elsewhere.status).toBe(200);
  });
});

/**
 * 48 clients on a thread of their own fetching `url` from 127.0.0.9 while switched on, bounded by the attack's
 * 800 fetches and 20 s in all. `ask` posts start, stop (answered once its requests in flight have ended) or
 * end (answered with the statuses seen).
 */
class FloodThread {
  private readonly worker: Worker;

  constructor(url: string) {
    this.worker = new Worker(
      `
      const { parentPort, workerData } = require('node:worker_threads');
      const { Agent, request } = require('undici');
      const dispatcher = new Agent({ localAddress: '127.0.0.9', connections: 48 });
      const statuses = {};
      const started = Date.now();
      let sent = 0;
      let on = false;
      let clients = [];
      const client = async () => {
        while (on && sent < 800 && Date.now() - started < 20000) {
          sent++;
          const res = await request(workerData.url, { dispatcher });
          await res.body.arrayBuffer();
          statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        }
      };
      parentPort.on('message', async (what) => {
        if (what === 'start') {
          on = true;
          clients = Array.from({ length: 48 }, client);
          parentPort.postMessage('started');
        } else if (what === 'stop') {
          on = false;
          await Promise.all(clients);
          parentPort.postMessage('stopped');
        } else {
          await dispatcher.close();
          parentPort.postMessage({ statuses, sent });
        }
      });`,
      { eval: true, workerData: { url } },
    );
  }

  ask(what: 'start' | 'stop' | 'end'): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.worker.once('message', (answer) => {
        this.worker.off('error', reject);
        if (what === 'end') void this.worker.terminate();
        resolve(answer);
      });
      this.worker.once('error', reject);
      this.worker.postMessage(what);
    });
  }
}
