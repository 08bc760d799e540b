import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moveTo, sandboxSale } from '../../sales/fixtures.js';
import { createCashout } from '../../support/cashouts.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { fundMerchant } from '../../support/ledger.js';
import { type Receiver, startReceiver } from '../../support/receiver.js';
import { startServer, type TestServer } from '../../support/server.js';
import { waitUntil } from '../../support/wait.js';
import { createWebhook } from '../../support/webhooks.js';

const TOKEN = 'metrics-test-token';
let server: TestServer;
let merchant: TestMerchant;
let receiver: Receiver;

beforeAll(async () => {
  server = await startServer({ env: { METRICS_TOKEN: TOKEN, RATE_LIMIT_PER_KEY: '20' } });
  merchant = await createMerchant(server);
  receiver = await startReceiver();
  receiver.setFallback({ status: 500 }); // deliveries stay pending (next try in a minute): the backlog shows
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

async function scrape(): Promise<string> {
  const res = await call('GET', `${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  return res.text;
}

/** The sum of a metric's samples whose labels include `labels`. */
function value(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const has = Object.entries(labels).every(([k, v]) => (m[2] ?? '').includes(`${k}="${v}"`));
    if (has) sum += Number(m[3]);
  }
  return sum;
}

describe('/metrics during real traffic', () => {
  it('moves every metric decisions.md lists', async () => {
    const before = await scrape();
    await createWebhook(server, merchant, receiver.url);

    const sale = await sandboxSale(server, merchant);
    expect((await moveTo(server, merchant, sale.id, 'PAGO')).status).toBe(200);

    await fundMerchant(server.runtime.platform.db, merchant.accountId, 100_000);
    await createCashout(server.url, merchant, 1000);

    const other = await createMerchant(server);
    const burst = await Promise.all(
      Array.from({ length: 80 }, () =>
        call('GET', `${server.url}/api/public/balance`, { headers: other.keys }),
      ),
    );
    expect(burst.some((r) => r.status === 429)).toBe(true);

    const after = await waitUntil(async () => {
      const text = await scrape();
      const ready =
        value(text, 'gateway_payout_provider_seconds_count') >
          value(before, 'gateway_payout_provider_seconds_count') &&
        value(text, 'gateway_webhook_deliveries_total', { outcome: 'retry' }) >
          value(before, 'gateway_webhook_deliveries_total', { outcome: 'retry' }) &&
        value(text, 'gateway_webhook_oldest_pending_seconds') > 0;
      return ready && text;
    });

    const moved = (name: string, labels: Record<string, string> = {}) =>
      expect(value(after, name, labels), `${name} ${JSON.stringify(labels)}`).toBeGreaterThan(
        value(before, name, labels),
      );
    moved('http_request_duration_seconds_count', {
      route: '/api/public/balance',
      method: 'GET',
      status: '200',
    });
    moved('http_request_duration_seconds_count', {
      route: '/api/public/balance',
      method: 'GET',
      status: '429',
    });
    moved('gateway_sales_total', { status: 'PENDENTE' });
    moved('gateway_sales_total', { status: 'PAGO' });
    moved('gateway_cashouts_total', { status: 'PENDING' });
    moved('gateway_cashouts_total', { status: 'PROCESSING' });
    moved('gateway_webhook_deliveries_total', { outcome: 'retry' });
    moved('gateway_payout_provider_seconds_count', { outcome: 'ok' });
    moved('gateway_rate_limited_total', { route: '/api/public/balance' });
    expect(value(after, 'gateway_webhook_queue_depth')).toBeGreaterThan(0);
    expect(value(after, 'gateway_webhook_oldest_pending_seconds')).toBeGreaterThan(0);
  });
});

describe('the sale and cashout counters count each one once', () => {
  it('a card sale (created without sale.pending) counts PENDENTE; racing cashouts count only those accepted', async () => {
    const m = await createMerchant(server);
    const before = await scrape();
    await sandboxSale(server, m, { paymentMethod: 'CREDIT_CARD' });
    await fundMerchant(server.runtime.platform.db, m.accountId, 25_000);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        call('POST', `${server.url}/api/public/cashout`, {
          headers: m.keys,
          body: { amount: '100.00', pixKey: '52998224725', pixKeyType: 'CPF' },
        }),
      ),
    );
    const accepted = answers.filter((r) => r.status === 201).length;
    expect(accepted).toBeGreaterThan(0);
    const after = await scrape();
    const delta = (name: string, status: string) =>
      value(after, name, { status }) - value(before, name, { status });
    expect(delta('gateway_sales_total', 'PENDENTE')).toBe(1);
    expect(delta('gateway_cashouts_total', 'PENDING')).toBe(accepted);
  });

  it('counts a login lockout’s 429 in gateway_rate_limited_total, as every 429', async () => {
    const before = await scrape();
    const tries = [];
    for (let i = 0; i < 8; i++) {
      tries.push(
        await call('POST', `${server.url}/api/auth/login`, {
          body: { email: merchant.email, password: 'not-the-password' },
        }),
      );
    }
    const refused = tries.filter((t) => t.status === 429).length;
    expect(refused).toBeGreaterThan(0);
    const after = await scrape();
    expect(
      value(after, 'gateway_rate_limited_total', { route: '/api/auth/login' }) -
        value(before, 'gateway_rate_limited_total', { route: '/api/auth/login' }),
    ).toBe(refused);
  });
});
