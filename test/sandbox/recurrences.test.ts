import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../../src/accounts/accounts.js';
import { CUSTOMER, eventsOf, type SaleBody } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let merchant: TestMerchant;

beforeAll(async () => {
  server = await startServer({ workers: false });
  merchant = await createMerchant(server);
});
afterAll(() => server?.close());

interface Created {
  idRec: string;
  contrato: string;
  journey: number;
  sale: SaleBody | null;
}

const body = (overrides: Record<string, unknown> = {}) => ({
  contrato: 'CONTRATO-2026-001',
  journey: 1,
  amount: 4990,
  dataInicial: '2026-12-05',
  customer: CUSTOMER,
  ...overrides,
});

const create = (overrides: Record<string, unknown> = {}, m = merchant) =>
  call<Created>('POST', `${server.url}/api/sandbox/recurrences`, { headers: m.keys, body: body(overrides) });
const cycle = (idRec: string, m = merchant) =>
  call<SaleBody>('POST', `${server.url}/api/sandbox/recurrences/${idRec}/cycles`, { headers: m.keys });

async function saleEventsOfAccount(): Promise<string[]> {
  const rows = await server.runtime.platform.db.query<{ event_type: string }>(
    `SELECT event_type FROM notification_events WHERE account_id = $1 AND subject_type = 'sale'`,
    [merchant.accountId],
  );
  return rows.map((r) => r.event_type);
}

describe('POST /api/sandbox/recurrences', () => {
  it.each([1, 2])('journey %i authorizes only: sale null, no sale, no notification', async (journey) => {
    const before = await saleEventsOfAccount();
    const res = await create({ journey });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      idRec: expect.stringMatching(/^RR99999999\d{8}[A-Za-z0-9]{11}$/),
      contrato: 'CONTRATO-2026-001',
      journey,
      sale: null,
    });
    expect(Object.keys(res.body)).toEqual(['idRec', 'contrato', 'journey', 'sale']);
    const [n] = await server.runtime.platform.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM sales WHERE id_rec = $1`,
      [res.body.idRec],
    );
    expect(n!.n).toBe(0);
    expect(await saleEventsOfAccount()).toEqual(before);
  });

  it.each([3, 4])(
    'journey %i pays the first cycle: a PAGO PIX_AUTOMATICO sale, notified once',
    async (journey) => {
      const res = await create({ journey, contrato: `C-${journey}` });
      expect(res.status).toBe(201);
      const sale = res.body.sale!;
      expect(sale).toMatchObject({
        status: 'PAGO',
        paymentMethod: 'PIX_AUTOMATICO',
        amount: 4990,
        idRec: res.body.idRec,
        contrato: `C-${journey}`,
        completedAt: expect.any(String),
      });
      const events = await eventsOf(server, 'sale', sale.id);
      expect(events.map((e) => e.event_type)).toEqual(['sale.paid']);
      expect(JSON.parse(events[0]!.webhook_body)).toMatchObject({
        idRec: res.body.idRec,
        contrato: `C-${journey}`,
      });
    },
  );

  it('every later cycle is its own PAGO sale with its own id and notification', async () => {
    for (const journey of [1, 3]) {
      const rec = await create({ journey, contrato: `CYC-${journey}` });
      const first = await cycle(rec.body.idRec);
      const second = await cycle(rec.body.idRec);
      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      const ids = [rec.body.sale?.id, first.body.id, second.body.id].filter((x) => x !== undefined);
      expect(new Set(ids).size).toBe(ids.length);
      for (const s of [first.body, second.body]) {
        expect(s).toMatchObject({
          status: 'PAGO',
          paymentMethod: 'PIX_AUTOMATICO',
          idRec: rec.body.idRec,
          contrato: `CYC-${journey}`,
        });
        const events = await eventsOf(server, 'sale', s.id);
        expect(events.map((e) => e.event_type)).toEqual(['sale.paid']);
      }
      const lookup = await call<SaleBody>('GET', `${server.url}/api/transactions/${second.body.uuid}`, {
        headers: merchant.keys,
      });
      expect(lookup.body).toMatchObject({ idRec: rec.body.idRec, contrato: `CYC-${journey}` });
    }
  });

  it('cycles credit the balance like any paid sale', async () => {
    const m = await createMerchant(server, 'Recurring');
    const rec = await create({ journey: 2, amount: 1500 }, m);
    await cycle(rec.body.idRec, m);
    await cycle(rec.body.idRec, m);
    const bal = await call('GET', `${server.url}/api/public/balance`, { headers: m.keys });
    expect(bal.body).toEqual({ available: 3000, blocked: 0, total: 3000, receivable: 0 });
  });

  it.each([1, 3])(
    'journey %i: an amount the sale fee does not fit → 400, nothing written',
    async (journey) => {
      const m = await createMerchant(server, 'Fee Merchant');
      await updateAccount(server.runtime.platform.db, m.accountId, { saleFeeFixed: 1000 });
      const res = await create({ journey, amount: 500 }, m);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        success: false,
        error: { code: 'VALIDATION_ERROR', message: expect.any(String) },
      });
      const [n] = await server.runtime.platform.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM recurrences WHERE account_id = $1`,
        [m.accountId],
      );
      expect(n!.n).toBe(0);
    },
  );

  it("answers 404 for an unknown idRec or another account's", async () => {
    const rec = await create({ journey: 1 });
    const other = await createMerchant(server, 'Other');
    expect((await cycle('RR999999992026010100000000000')).status).toBe(404);
    const res = await cycle(rec.body.idRec, other);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
  });

  const invalid: [string, Record<string, unknown>][] = [
    ['journey 0', { journey: 0 }],
    ['journey 5', { journey: 5 }],
    ['journey as string', { journey: '1' }],
    ['amount 0', { amount: 0 }],
    ['no contrato', { contrato: undefined }],
    ['empty contrato', { contrato: '' }],
    ['contrato over 35 chars', { contrato: 'x'.repeat(36) }],
    ['dataInicial not a date', { dataInicial: '05/12/2026' }],
    ['dataInicial impossible day', { dataInicial: '2026-02-30' }],
    ['customer missing', { customer: undefined }],
    ['postbackUrl relative', { postbackUrl: 'pb' }],
  ];
  it.each(invalid)('400 VALIDATION_ERROR (shape A): %s', async (_n, overrides) => {
    const res = await create(overrides);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: { code: 'VALIDATION_ERROR', message: expect.any(String) },
    });
  });
});
