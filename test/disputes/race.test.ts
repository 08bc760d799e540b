import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../src/ledger/verify.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { balanceOf, decide, disputeMerchant, openDispute, paidSale } from './fixtures.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ workers: false });
});
afterAll(() => server?.close());

describe('a dispute opening while a cashout of the same money is being created', () => {
  it('20 rounds: the cashout either comes first (and the dispute leaves a debt) or is refused; never both out and returned', async () => {
    const seen = { cashoutFirst: 0, disputeFirst: 0 };
    for (let round = 0; round < 20; round++) {
      const m = await disputeMerchant(server);
      const sale = await paidSale(server, m, 20000);
      expect(await balanceOf(server, m)).toMatchObject({ available: 19400, blocked: 0 });
      const [dispute, cashout] = await Promise.all([
        openDispute(server, m, sale.uuid, { kind: 'med' }),
        call('POST', `${server.url}/api/public/cashout`, {
          headers: m.keys,
          body: { amount: 194, pixKey: '52998224725' },
        }),
      ]);
      expect(dispute.status, dispute.text).toBe(201);
      const balance = await balanceOf(server, m);
      if (cashout.status === 201) {
        seen.cashoutFirst++;
        // the cashout holds its 19400 in blocked; the dispute took the sale's 20000 from available
        expect(balance).toMatchObject({ available: -20000, blocked: 19400 + 20000 });
      } else {
        seen.disputeFirst++;
        expect(cashout.status).toBe(422);
        expect(cashout.body).toMatchObject({ errorType: 'INSUFFICIENT_BALANCE' });
        expect(balance).toMatchObject({ available: -600, blocked: 20000 });
      }
      // the payer's money goes back: the merchant keeps owing what the cashout took
      await decide(server, m, dispute.body.id, 'lost');
      const after = await balanceOf(server, m);
      expect(after.available).toBe(cashout.status === 201 ? -20000 : -600);
      expect(after.blocked).toBe(cashout.status === 201 ? 19400 : 0);
    }
    expect(seen.cashoutFirst + seen.disputeFirst).toBe(20);
    expect((await verifyLedger(server.runtime.platform.db)).problems).toEqual([]);
  });
});

describe('disputes lost while refunds of the same account run', () => {
  it('6 losses (in part and whole) and 6 refunds of other sales at once: all answered, none deadlocks, the ledger holds', async () => {
    const m = await disputeMerchant(server);
    const disputed = [];
    const refunded = [];
    for (let i = 0; i < 6; i++) {
      disputed.push(await paidSale(server, m, 5000));
      refunded.push(await paidSale(server, m, 6000));
    }
    const disputes = [];
    for (const [i, sale] of disputed.entries()) {
      // half of them for a part of the sale (the sale goes back to PAGO), half for all of it (ESTORNADO)
      const opened = await openDispute(server, m, sale.uuid, {
        kind: 'med',
        ...(i % 2 ? { amountCents: 1507 } : {}),
      });
      expect(opened.status, opened.text).toBe(201);
      disputes.push(opened.body.id);
    }
    const answers = await Promise.all([
      ...disputes.map((id) => decide(server, m, id, 'lost')),
      ...refunded.map((sale) =>
        call('POST', `${server.url}/api/transactions/${sale.uuid}/refund`, {
          headers: m.keys,
          body: { amountCents: 1000 },
        }),
      ),
    ]);
    expect(answers.map((a) => a.status)).toEqual([...disputes.map(() => 200), ...refunded.map(() => 202)]);
    expect((await verifyLedger(server.runtime.platform.db)).problems).toEqual([]);
  });
});
