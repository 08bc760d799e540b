/**
 * The payer's boleto PDF link needs no key: fetched by the hundred from one address it must neither render the
 * PDF each time nor slow another merchant down. The flood runs on a thread of its own against a real gateway
 * process, and another merchant's balance is read meanwhile and before it, in the same run.
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

async function balanceTimes(count: number, while_: () => boolean = () => true): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count && while_(); i++) {
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

  it('fetches at 48 at once from one address (the attack’s 800, or 5 s): 429 past its budget, another merchant’s balance p99 within 2× of idle', async () => {
    await balanceTimes(50); // warm
    const idle = await balanceTimes(400);
    let flooding = true;
    const flood = runOnThread(
      `
      const { parentPort, workerData } = require('node:worker_threads');
      const { Agent, request } = require('undici');
      const dispatcher = new Agent({ localAddress: '127.0.0.9', connections: 48 });
      const statuses = {};
      let sent = 0;
      const started = Date.now();
      // bounded: the attack's 800 fetches, or 5 s
      const one = async () => {
        while (sent < workerData.max && Date.now() - started < 5000) {
          sent++;
          const res = await request(workerData.url, { dispatcher });
          await res.body.arrayBuffer();
          statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        }
      };
      Promise.all(Array.from({ length: 48 }, one)).then(
        () => parentPort.postMessage({ statuses, sent, ms: Date.now() - started }),
        (err) => { throw err; },
      );`,
      { url: `${gateway.url}${pdfPath}`, max: 800 },
    );
    const during = balanceTimes(2000, () => flooding);
    const result = (await flood) as { statuses: Record<string, number>; sent: number; ms: number };
    flooding = false;
    const underFlood = await during;
    const ratio = p99(underFlood) / p99(idle);
    console.log(
      `boleto PDF flood: ${result.sent} fetches in ${result.ms} ms (${JSON.stringify(result.statuses)}); victim balance p99 idle ${p99(idle).toFixed(1)} ms (${idle.length} calls), during ${p99(underFlood).toFixed(1)} ms (${underFlood.length} calls): ×${ratio.toFixed(2)}`,
    );
    expect(result.statuses['200'] ?? 0).toBeLessThanOrEqual(30);
    expect(result.statuses['429']).toBeGreaterThan(0);
    expect(Object.keys(result.statuses).sort()).toEqual(result.statuses['200'] ? ['200', '429'] : ['429']);
    expect(underFlood.length).toBeGreaterThan(50);
    expect(ratio).toBeLessThanOrEqual(2);
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

/** Runs CommonJS `code` on a worker thread; resolves with the first message it posts, rejects if it throws. */
function runOnThread(code: string, workerData: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData });
    worker.once('message', (message) => {
      resolve(message);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}
