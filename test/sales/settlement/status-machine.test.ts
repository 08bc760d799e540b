import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../../../src/accounts/accounts.js';
import { verifyLedger } from '../../../src/ledger/verify.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { startServer, type TestServer } from '../../support/server.js';
import { eventsOf, moveTo, sandboxSale } from '../fixtures.js';

const STATUSES = [
  'PENDENTE',
  'EM_PROCESSAMENTO',
  'PAGO',
  'CANCELADO',
  'RECUSADO',
  'ESTORNADO',
  'FALHA',
  'CHARGEBACK',
  'MED',
] as const;
type Status = (typeof STATUSES)[number];

// decisions.md, "Sale transitions", written out independently of src/.
const ALLOWED: Record<Status, Status[]> = {
  PENDENTE: ['EM_PROCESSAMENTO', 'PAGO', 'CANCELADO', 'RECUSADO', 'FALHA'],
  EM_PROCESSAMENTO: ['PAGO', 'RECUSADO', 'FALHA', 'CANCELADO'],
  PAGO: ['ESTORNADO', 'CHARGEBACK', 'MED'],
  MED: ['PAGO', 'ESTORNADO'],
  CHARGEBACK: ['PAGO', 'ESTORNADO'],
  CANCELADO: [],
  RECUSADO: [],
  ESTORNADO: [],
  FALHA: [],
};
const PATH: Record<Status, Status[]> = {
  PENDENTE: [],
  EM_PROCESSAMENTO: ['EM_PROCESSAMENTO'],
  PAGO: ['PAGO'],
  CANCELADO: ['CANCELADO'],
  RECUSADO: ['RECUSADO'],
  FALHA: ['FALHA'],
  ESTORNADO: ['PAGO', 'ESTORNADO'],
  CHARGEBACK: ['PAGO', 'CHARGEBACK'],
  MED: ['PAGO', 'MED'],
};
const EVENT: Partial<Record<Status, string>> = {
  PAGO: 'sale.paid',
  RECUSADO: 'sale.refused',
  FALHA: 'sale.refused',
  CANCELADO: 'sale.canceled',
  ESTORNADO: 'sale.refunded',
  CHARGEBACK: 'sale.chargeback',
  MED: 'sale.chargeback',
};

// amount 10000, fee 2 % + 0.50 = 250, net 9750, reserve 10 % = 1000
const NET = 9750;
const RESERVE = 1000;
function expectedDelta(from: Status, to: Status): [number, number] {
  const dispute = (s: Status) => s === 'MED' || s === 'CHARGEBACK';
  if (to === 'PAGO' && (from === 'PENDENTE' || from === 'EM_PROCESSAMENTO')) return [NET - RESERVE, RESERVE];
  if (to === 'PAGO' && dispute(from)) return [NET - RESERVE, -(NET - RESERVE)];
  if (dispute(to)) return [-(NET - RESERVE), NET - RESERVE];
  if (to === 'ESTORNADO' && from === 'PAGO') return [-(NET - RESERVE), -RESERVE];
  if (to === 'ESTORNADO') return [0, -NET];
  return [0, 0];
}

let server: TestServer;
let merchant: TestMerchant;

beforeAll(async () => {
  server = await startServer();
  merchant = await createMerchant(server);
  await updateAccount(server.runtime.platform.db, merchant.accountId, {
    saleFeePercentE4: 20000,
    saleFeeFixed: 50,
    reservePercentE4: 100000,
  });
});
afterAll(() => server?.close());

async function balance() {
  const res = await call<{ available: number; blocked: number }>('GET', `${server.url}/api/public/balance`, {
    headers: merchant.keys,
  });
  return res.body;
}

const cases = STATUSES.flatMap((from) => STATUSES.map((to) => ({ from, to })));

describe('the full transition matrix (sandbox = processor path)', () => {
  it.each(cases)('$from → $to', async ({ from, to }) => {
    const sale = await sandboxSale(server, merchant, { postbackUrl: 'https://merchant.example/pb' });
    for (const step of PATH[from]) expect((await moveTo(server, merchant, sale.uuid, step)).status).toBe(200);
    const eventsBefore = await eventsOf(server, 'sale', sale.id);
    const before = await balance();

    const res = await moveTo(server, merchant, sale.id, to);
    const eventsAfter = await eventsOf(server, 'sale', sale.id);
    const after = await balance();
    const newEvents = eventsAfter.slice(eventsBefore.length);

    if (from === to) {
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(from);
      expect(newEvents).toEqual([]);
      expect(after).toEqual(before);
    } else if (ALLOWED[from].includes(to)) {
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(to);
      const [dAvail, dBlocked] = expectedDelta(from, to);
      expect(after.available - before.available).toBe(dAvail);
      expect(after.blocked - before.blocked).toBe(dBlocked);
      if (to === 'EM_PROCESSAMENTO') {
        expect(newEvents).toEqual([]);
      } else {
        expect(newEvents.map((e) => e.event_type)).toEqual([EVENT[to]]);
        expect(newEvents[0]!.postback_url).toBe('https://merchant.example/pb');
        expect(JSON.parse(newEvents[0]!.webhook_body).status).toBe(to);
        expect(JSON.parse(newEvents[0]!.postback_body!).status).toBe(to);
      }
    } else {
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        success: false,
        error: { code: 'CONFLICT', message: `a sale in status ${from} cannot become ${to}` },
      });
      expect(newEvents).toEqual([]);
      expect(after).toEqual(before);
      const look = await call<{ status: string }>('GET', `${server.url}/api/transactions/${sale.uuid}`, {
        headers: merchant.keys,
      });
      expect(look.body.status).toBe(from);
    }
  });

  it('leaves a ledger that verifies', async () => {
    const report = await verifyLedger(server.runtime.platform.db);
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
  });
});
