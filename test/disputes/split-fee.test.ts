import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevPsp } from '../../src/devpsp/server.js';
import { getBalance } from '../../src/ledger/ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { createRecipient, recipientBalance } from '../recipients/fixtures.js';
import { type SaleBody, saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startBcbGateway } from '../support/psp.js';
import type { TestServer } from '../support/server.js';
import { medNoticeReader } from './fixtures.js';

// A lost dispute of a split sale is taken from its liable parties, the fee it does not give back included
// (decisions.md Part 5), whatever moves on the sale while it is open: here a refund asked before the PSP's MED
// notice and made by the PSP during the dispute.

let psp: DevPsp;
let server: TestServer;
let shop: TestMerchant;
let med: ReturnType<typeof medNoticeReader>;

beforeAll(async () => {
  ({ psp, server } = await startBcbGateway());
  shop = await createMerchant(server, 'Plataforma Taxa Dividida');
  // 3.99 % + R$ 0,99: 2493 on 60001
  await db().query('UPDATE accounts SET sale_fee_percent_e4 = 39900, sale_fee_fixed = 99 WHERE id = $1', [
    shop.accountId,
  ]);
  med = medNoticeReader(server);
});
afterAll(async () => {
  await med?.close();
  await server?.close();
  await psp?.close();
});

const db = () => server.runtime.platform.db;
const read = () => med.read();

async function balances(recipients: string[]) {
  const platform = await getBalance(db(), shop.accountId);
  const parties = await Promise.all(recipients.map((id) => recipientBalance(server, shop, id)));
  return [platform, ...parties].map((b) => ({ available: b.available, blocked: b.blocked }));
}

/**
 * A split sale of 60001 (Ana 50 % and Bia 20 %, both liable, Bia paying the fees), paid by Pix, with a refund
 * of 4001 the PSP has not made yet: its net, 57508 × 4001 / 60001 = 3834, held from Ana and Bia.
 */
async function paidWithRefundInFlight(tag: string) {
  const ana = await createRecipient(server, shop, { name: `Ana ${tag}` });
  const bia = await createRecipient(server, shop, { name: `Bia ${tag}` });
  const res = await call<SaleBody & { split: { netCents: number }[] }>(
    'POST',
    `${server.url}/api/transactions`,
    {
      headers: shop.keys,
      body: saleInput({
        amount: 60001,
        split: [
          { recipientId: ana.id, percent: 50, liable: true },
          { recipientId: bia.id, percent: 20, liable: true, chargeFees: true },
        ],
      }),
    },
  );
  expect(res.status, res.text).toBe(201);
  // the nets: Ana 30000, Bia 12000 − 2493 = 9508 (with the cent of rounding), the platform 18000
  expect(res.body.split.map((p) => p.netCents)).toEqual([30000, 9508, 18000]);
  const pix = await psp.pay(res.body.externalTransactionId);
  const paid = await balances([ana.id, bia.id]);
  const refund = await call('POST', `${server.url}/api/transactions/${res.body.uuid}/refund`, {
    headers: shop.keys,
    body: { amountCents: 4001 },
  });
  expect(refund.status, refund.text).toBe(202);
  return { parties: [ana.id, bia.id], sale: res.body, pix, paid };
}

describe("a MED of a split sale with a refund in flight at the PSP's notice", () => {
  // the payer's bank reports the whole Pix (the dispute takes what is left, 56000), or R$ 200,00 of it
  for (const [valor, disputed] of [
    [null, 56000],
    ['200.00', 20000],
  ] as const) {
    for (const outcome of ['ACEITA', 'REJEITADA'] as const) {
      it(`${valor ?? 'all'}, ${outcome}: the liable recipients bear it, the platform nothing, every blocked back where it was`, async () => {
        const { parties, sale, pix, paid } = await paidWithRefundInFlight(
          `${valor ? 'parte' : 'toda'} ${outcome}`,
        );
        const infracao = psp.infracoes.open(valor ? { ...pix, valor } : pix, 'Pagador relata golpe');
        expect(await read()).toMatchObject({ opened: 1 });
        const [dispute] = await db().query<{ amount_cents: number }>(
          'SELECT amount_cents FROM disputes WHERE sale_uuid = $1',
          [sale.uuid],
        );
        expect(Number(dispute!.amount_cents)).toBe(disputed);
        // the platform, not liable, holds nothing of it
        expect((await balances(parties))[0]).toEqual(paid[0]);
        expect((await verifyLedger(db())).problems).toEqual([]);

        // the PSP makes the refund during the dispute, then decides the dispute
        const [dev] = psp.state.pix.get(pix.endToEndId)!.devolucoes;
        await psp.settleRefund(pix.endToEndId, dev!.id, 'DEVOLVIDO');
        psp.infracoes.close(infracao.idInfracao, outcome);
        expect(await read()).toMatchObject(outcome === 'ACEITA' ? { lost: 1 } : { won: 1 });

        const after = await balances(parties);
        const paidBy = after.map((b, i) => paid[i]!.available - b.available);
        expect(paidBy[0]).toBe(0);
        expect(paidBy[1]! + paidBy[2]!).toBe(3834 + (outcome === 'ACEITA' ? disputed : 0));
        if (valor === null) {
          // the refund's net, 3834, is 2912 from Ana and 922 from Bia; a loss adds the 56000 disputed: its net
          // (53674) and the fee it does not give back (2326), each shared as what Ana and Bia hold
          expect(paidBy).toEqual(outcome === 'ACEITA' ? [0, 45434, 14400] : [0, 2912, 922]);
        }
        expect(after.map((b, i) => b.blocked - paid[i]!.blocked)).toEqual([0, 0, 0]);
        expect((await verifyLedger(db())).problems).toEqual([]);
      });
    }
  }
});
