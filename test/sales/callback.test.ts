import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBalance } from '../../src/ledger/ledger.js';
import { sandboxProcessorSecret, signProcessorCallback } from '../../src/sales/processors/sandbox.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { eventsOf, type SaleBody, sandboxSale } from './fixtures.js';

let server: TestServer;
let merchant: TestMerchant;
let secret: string;
const URL_PATH = '/api/providers/sandbox/sales/callback';

beforeAll(async () => {
  server = await startServer();
  merchant = await createMerchant(server);
  secret = sandboxProcessorSecret(server.runtime.platform.config.secretsKey);
});
afterAll(() => server?.close());

function signed(body: string, options: { secret?: string; timestamp?: number } = {}) {
  const ts = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  return {
    'x-processor-timestamp': ts,
    'x-processor-signature': signProcessorCallback(options.secret ?? secret, ts, body),
  };
}

async function callback(body: string, headers: Record<string, string>, path = URL_PATH) {
  return call<Record<string, unknown>>('POST', `${server.url}${path}`, {
    headers: { ...headers, 'content-type': 'application/json' },
    body,
  });
}

async function state(sale: SaleBody) {
  const [row] = await server.runtime.platform.db.query<{ status: string }>(
    'SELECT status FROM sales WHERE id = $1',
    [sale.id],
  );
  return {
    status: row!.status,
    events: (await eventsOf(server, 'sale', sale.id)).length,
    balance: await getBalance(server.runtime.platform.db, merchant.accountId),
  };
}

describe('POST /api/providers/sandbox/sales/callback', () => {
  it('a correctly signed callback moves the sale through the status machine', async () => {
    const sale = await sandboxSale(server, merchant, { amount: 5000 });
    const before = await state(sale);
    const body = JSON.stringify({ externalTransactionId: sale.externalTransactionId, status: 'PAGO' });
    const res = await callback(body, signed(body));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: sale.id, uuid: sale.uuid, status: 'PAGO', changed: true });
    const after = await state(sale);
    expect(after.status).toBe('PAGO');
    expect(after.events).toBe(before.events + 1);
    expect(after.balance.available - before.balance.available).toBe(5000);

    const again = await callback(body, signed(body));
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ id: sale.id, uuid: sale.uuid, status: 'PAGO', changed: false });
    expect(await state(sale)).toEqual(after);
  });

  it('refuses bad, missing, stale or foreign signatures with 401 and changes nothing', async () => {
    const sale = await sandboxSale(server, merchant);
    const body = JSON.stringify({ externalTransactionId: sale.externalTransactionId, status: 'PAGO' });
    const before = await state(sale);
    const good = signed(body);
    const variants: Record<string, string>[] = [
      {},
      { 'x-processor-timestamp': good['x-processor-timestamp'] },
      { 'x-processor-signature': good['x-processor-signature'] },
      {
        ...good,
        'x-processor-signature': good['x-processor-signature'].replace(/.$/, (c) => (c === '0' ? '1' : '0')),
      },
      signed(body, { secret: 'not-the-secret' }),
      signed(body, { timestamp: Math.floor(Date.now() / 1000) - 3600 }),
      { ...good, 'x-processor-timestamp': String(Number(good['x-processor-timestamp']) + 1) },
    ];
    for (const headers of variants) {
      const res = await callback(body, headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        success: false,
        error: { code: 'UNAUTHORIZED', message: 'Invalid processor signature' },
      });
    }
    // the signature covers the raw bytes: re-serialized JSON with the same meaning is refused
    const spaced = JSON.stringify(JSON.parse(body), null, 1);
    expect((await callback(spaced, good)).status).toBe(401);
    expect(await state(sale)).toEqual(before);
  });

  it('a replayed callback (same signature) changes nothing, even after the sale moved on', async () => {
    const sale = await sandboxSale(server, merchant, { amount: 3000 });
    // distinct timestamps: the PAGO bodies are the same bytes, so equal timestamps would be one callback
    const now = Math.floor(Date.now() / 1000);
    const pay = JSON.stringify({ externalTransactionId: sale.externalTransactionId, status: 'PAGO' });
    expect((await callback(pay, signed(pay, { timestamp: now - 3 }))).body).toMatchObject({ changed: true });
    const med = JSON.stringify({ externalTransactionId: sale.externalTransactionId, status: 'MED' });
    const medHeaders = signed(med, { timestamp: now - 2 });
    expect((await callback(med, medHeaders)).body).toMatchObject({ status: 'MED', changed: true });
    expect((await callback(pay, signed(pay, { timestamp: now - 1 }))).body).toMatchObject({
      status: 'PAGO',
      changed: true,
    });
    const before = await state(sale);
    const replay = await callback(med, medHeaders);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual({ id: sale.id, uuid: sale.uuid, status: 'PAGO', changed: false });
    expect(await state(sale)).toEqual(before);
    // a fresh signature of the same move is a new callback
    expect((await callback(med, signed(med, { timestamp: now + 1 }))).body).toMatchObject({
      status: 'MED',
      changed: true,
    });
  });

  it('answers 409 for a refused transition, 404 for unknown references and processors', async () => {
    const sale = await sandboxSale(server, merchant);
    const body = JSON.stringify({ externalTransactionId: sale.externalTransactionId, status: 'ESTORNADO' });
    const refused = await callback(body, signed(body));
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ success: false, error: { code: 'CONFLICT' } });
    expect((await state(sale)).status).toBe('PENDENTE');

    const unknown = JSON.stringify({ externalTransactionId: 'sbx_missing', status: 'PAGO' });
    expect((await callback(unknown, signed(unknown))).status).toBe(404);
    const other = await callback(body, signed(body), '/api/providers/acme/sales/callback');
    expect(other.status).toBe(404);
  });

  it('validates the body after the signature', async () => {
    const body = JSON.stringify({ externalTransactionId: 'x', status: 'PAID' });
    const res = await callback(body, signed(body));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    const broken = '{"externalTransactionId":';
    expect((await callback(broken, signed(broken))).status).toBe(400);
  });
});

describe('with SANDBOX off', () => {
  it('has no sandbox routes and no sandbox processor', async () => {
    const off = await startServer({ env: { SANDBOX: 'off' }, workers: false });
    try {
      const m = await createMerchant(off);
      const res = await call('POST', `${off.url}/api/sandbox/sales`, { headers: m.keys, body: {} });
      expect(res.status).toBe(404);
      const body = JSON.stringify({ externalTransactionId: 'x', status: 'PAGO' });
      const cb = await call('POST', `${off.url}${URL_PATH}`, { headers: signed(body), body });
      expect(cb.status).toBe(404);
    } finally {
      await off.close();
    }
  });
});
