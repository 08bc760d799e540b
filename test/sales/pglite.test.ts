import { afterAll, beforeAll, expect, it } from 'vitest';
import { verifyLedger } from '../../src/ledger/verify.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { CUSTOMER, eventsOf, moveTo, type SaleBody, sandboxSale } from './fixtures.js';

// The same flows on the embedded database (PGlite): the migration's trigger and SQL must run on both.
let server: TestServer;
let merchant: TestMerchant;

beforeAll(async () => {
  server = await startServer({ env: { DATABASE_URL: '' }, workers: false });
  merchant = await createMerchant(server);
});
afterAll(() => server?.close());

it('creates, pays, disputes and looks up sales on PGlite', async () => {
  expect(server.runtime.platform.db.kind).toBe('pglite');
  const sale = await sandboxSale(server, merchant, {
    paymentMethod: 'CREDIT_CARD',
    installments: 2,
    items: [{ title: 'Livro', unitPrice: 10000, quantity: 1, tangible: true }],
    shipping: { zip: '01001000', city: 'São Paulo' },
    postbackUrl: 'https://merchant.example/pb',
  });
  expect((await moveTo(server, merchant, sale.uuid, 'PAGO')).status).toBe(200);
  expect((await moveTo(server, merchant, sale.id, 'CHARGEBACK')).status).toBe(200);
  const got = await call<SaleBody>('GET', `${server.url}/api/transactions/${sale.id}`, {
    headers: merchant.keys,
  });
  expect(got.status).toBe(200);
  expect(got.body).toMatchObject({
    status: 'CHARGEBACK',
    installments: 2,
    shipping: { zip: '01001000', city: 'São Paulo' },
  });
  expect(got.body.completedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  const events = await eventsOf(server, 'sale', sale.id);
  expect(events.map((e) => e.event_type)).toEqual(['sale.pending', 'sale.paid', 'sale.chargeback']);
  const balance = await call('GET', `${server.url}/api/public/balance`, { headers: merchant.keys });
  expect(balance.body).toEqual({ available: 0, blocked: 10000, total: 10000 });
  expect((await verifyLedger(server.runtime.platform.db)).ok).toBe(true);
});

it('runs recurring journeys on PGlite', async () => {
  const rec = await call<{ idRec: string; sale: SaleBody }>('POST', `${server.url}/api/sandbox/recurrences`, {
    headers: merchant.keys,
    body: { contrato: 'PGL-1', journey: 3, amount: 990, dataInicial: '2026-12-01', customer: CUSTOMER },
  });
  expect(rec.status).toBe(201);
  expect(rec.body.sale).toMatchObject({ status: 'PAGO', idRec: rec.body.idRec, contrato: 'PGL-1' });
  const next = await call<SaleBody>(
    'POST',
    `${server.url}/api/sandbox/recurrences/${rec.body.idRec}/cycles`,
    {
      headers: merchant.keys,
    },
  );
  expect(next.status).toBe(201);
  expect(next.body.id).not.toBe(rec.body.sale.id);
});
