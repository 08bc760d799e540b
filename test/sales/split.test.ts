import { Compile } from 'typebox/compile';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../../src/accounts/accounts.js';
import { getBalance } from '../../src/ledger/ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { Sale } from '../../src/sales/schemas.js';
import { decide, openDispute } from '../disputes/fixtures.js';
import { createRecipient, type RecipientBody, recipientBalance } from '../recipients/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { eventsOf, moveTo, type SaleBody, saleInput } from './fixtures.js';

type SplitSale = SaleBody & {
  split?: { recipientId: string | null; netCents: number; chargeFees: boolean; liable: boolean }[];
};

let server: TestServer;
let platform: TestMerchant;
let ana: RecipientBody;
let joao: RecipientBody;

const db = () => server.runtime.platform.db;
const charge = (body: unknown, who = platform) =>
  call<SplitSale>('POST', `${server.url}/api/transactions`, { headers: who.keys, body });
const refund = (id: string, amountCents?: number) =>
  call<SplitSale & { message?: string; error?: string }>(
    'POST',
    `${server.url}/api/transactions/${id}/refund`,
    {
      headers: platform.keys,
      body: amountCents === undefined ? {} : { amountCents },
    },
  );
const expectLedgerOk = async () => expect((await verifyLedger(db())).problems).toEqual([]);

beforeAll(async () => {
  server = await startServer({ workers: false });
  platform = await createMerchant(server, 'Marketplace');
  // 2 % + 0.50 a sale
  await updateAccount(db(), platform.accountId, { saleFeePercentE4: 20000, saleFeeFixed: 50 });
  ana = await createRecipient(server, platform, { name: 'Ana' });
  joao = await createRecipient(server, platform, { name: 'João' });
});
afterAll(() => server?.close());

describe('split on POST /api/transactions', () => {
  it('credits each share in the sale.paid entry, exact to the cent; the Sale, its lookup and webhooks carry split', async () => {
    const before = await getBalance(db(), platform.accountId);
    const res = await charge(
      saleInput({
        amount: 10001,
        split: [
          { recipientId: ana.id, amountCents: 3000 },
          { recipientId: joao.id, percent: 25.5, chargeFees: true },
        ],
      }),
    );
    expect(res.status, res.text).toBe(201);
    // fee: 2 % of 10001 (200) + 50 = 250; João 25.5 % of 10001 = 2550.255 → 2550, the platform's
    // 4450.745 → 4450, and the cent rounding left over goes to João, who pays the fees: 2551 − 250
    expect(res.body.systemFee).toBe(250);
    expect(res.body.split).toEqual([
      { recipientId: ana.id, amountCents: 3000, chargeFees: false, liable: false, netCents: 3000 },
      { recipientId: joao.id, percent: 25.5, chargeFees: true, liable: false, netCents: 2301 },
      { recipientId: null, chargeFees: false, liable: true, netCents: 4450 },
    ]);
    const paid = await moveTo(server, platform, res.body.uuid, 'PAGO');
    expect(paid.status, paid.text).toBe(200);
    expect(await recipientBalance(server, platform, ana.id)).toMatchObject({ available: 3000, total: 3000 });
    expect(await recipientBalance(server, platform, joao.id)).toMatchObject({ available: 2301, total: 2301 });
    const after = await getBalance(db(), platform.accountId);
    expect(after.available - before.available).toBe(4450);
    // one entry, the sale's own
    const entries = await db().query<{ kind: string; codes: string[] }>(
      `SELECT e.kind, array_agg(la.code ORDER BY la.code) AS codes FROM journal_entries e
         JOIN postings p ON p.entry_id = e.id JOIN ledger_accounts la ON la.id = p.ledger_account_id
        WHERE e.ref_type = 'sale' AND e.ref_id = $1 GROUP BY e.id, e.kind`,
      [res.body.id],
    );
    expect(entries.map((e) => e.kind)).toEqual(['sale.paid']);
    expect(entries[0]!.codes.filter((c) => c.startsWith('recipient:')).length).toBe(2);

    const lookup = await call<SplitSale>('GET', `${server.url}/api/transactions/${res.body.uuid}`, {
      headers: platform.keys,
    });
    expect(lookup.body.split).toEqual(res.body.split);
    expect(Compile(Sale).Check(lookup.body), JSON.stringify([...Compile(Sale).Errors(lookup.body)])).toBe(
      true,
    );
    expect(Object.keys(lookup.body).at(-1)).toBe('split');
    const events = await eventsOf(server, 'sale', res.body.id);
    const paidFact = events.find((e) => e.event_type === 'sale.paid')!;
    expect(JSON.parse(paidFact.webhook_body).split).toEqual(res.body.split);
    await expectLedgerOk();
  });

  it('refuses a split that cannot be with a 400 in shape D naming the problem, and stores no sale', async () => {
    const other = await createMerchant(server, 'Outra');
    const stranger = await createRecipient(server, other, { name: 'De outro' });
    const many = Array.from({ length: 11 }, () => ({ recipientId: ana.id, amountCents: 1 }));
    const cases: [unknown, RegExp][] = [
      [many, /10/],
      [
        [
          { recipientId: ana.id, amountCents: 6000 },
          { recipientId: joao.id, amountCents: 4001 },
        ],
        /amountCents add up/,
      ],
      [
        [
          { recipientId: ana.id, percent: 60 },
          { recipientId: joao.id, percent: 40.01 },
        ],
        /percents add up/,
      ],
      [
        [
          { recipientId: ana.id, amountCents: 6000 },
          { recipientId: joao.id, percent: 40.01 },
        ],
        /together/,
      ],
      [
        [
          { recipientId: ana.id, amountCents: 100, chargeFees: true },
          { recipientId: joao.id, amountCents: 100, chargeFees: true },
        ],
        /exactly one party pays the fees/,
      ],
      [[{ recipientId: ana.id, amountCents: 100, chargeFees: true }], /pays the fees \(250 cents\)/],
      [[{ recipientId: ana.id, amountCents: 10000 }], /the platform pays the fees/],
      [[{ recipientId: stranger.id, amountCents: 100 }], /not one of this account's/],
      [
        [{ recipientId: '5f0c2b8e-7d14-4f3a-9b6e-1c2d3e4f5a6b', amountCents: 100 }],
        /not one of this account's/,
      ],
      [[{ recipientId: ana.id, amountCents: 100, percent: 1 }], /exactly one of amountCents and percent/],
      [[{ recipientId: ana.id }], /exactly one of amountCents and percent/],
      [[{ recipientId: ana.id, percent: 10.005 }], /two decimals/],
      [
        [
          { recipientId: ana.id, amountCents: 1 },
          { recipientId: ana.id, amountCents: 1 },
        ],
        /twice/,
      ],
      [[], /at least one rule/],
    ];
    const [{ count: before }] = await db().query<{ count: string }>('SELECT count(*) FROM sales');
    for (const [split, message] of cases) {
      const res = await charge(saleInput({ amount: 10000, split }));
      expect(res.status, `${JSON.stringify(split)}: ${res.text}`).toBe(400);
      const body = res.body as unknown as { message: string; error: string };
      expect(body.error).toBe('VALIDATION_ERROR');
      expect(body.message).toMatch(message);
    }
    const [{ count: after }] = await db().query<{ count: string }>('SELECT count(*) FROM sales');
    expect(after).toBe(before);
  });
});

describe('refunds and disputes of a split sale', () => {
  it('takes partial and full refunds from the liable parties in proportion; the others keep their shares', async () => {
    const bia = await createRecipient(server, platform, { name: 'Bia' });
    const caio = await createRecipient(server, platform, { name: 'Caio' });
    const res = await charge(
      saleInput({
        amount: 20000,
        split: [
          { recipientId: bia.id, amountCents: 6000, liable: true },
          { recipientId: caio.id, amountCents: 4000 },
          { recipientId: ana.id, amountCents: 2000, liable: true },
        ],
      }),
    );
    expect(res.status, res.text).toBe(201);
    // fee 400 + 50 = 450, paid by the platform: 8000 − 450
    expect(res.body.split!.map((p) => p.netCents)).toEqual([6000, 4000, 2000, 7550]);
    const anaBefore = await recipientBalance(server, platform, ana.id);
    const platformBefore = await getBalance(db(), platform.accountId);
    await moveTo(server, platform, res.body.uuid, 'PAGO');

    // 5000 of 20000: the merchant's share of it is 19550 × 5000 / 20000 = 4887 (rounded down), taken from Bia
    // and Ana in proportion to their nets 6000 : 2000: 3665.25 and 1221.75, rounded down, and the cent left
    // to the most due (a tie, 6000/3666 = 2000/1222: the first rule)
    const partial = await refund(res.body.uuid, 5000);
    expect(partial.status, partial.text).toBe(202);
    expect(await recipientBalance(server, platform, bia.id)).toMatchObject({ available: 6000 - 3666 });
    expect(await recipientBalance(server, platform, ana.id)).toMatchObject({
      available: anaBefore.available + 2000 - 1221,
    });
    expect(await recipientBalance(server, platform, caio.id)).toMatchObject({ available: 4000 });
    expect((await getBalance(db(), platform.accountId)).available - platformBefore.available).toBe(7550);
    await expectLedgerOk();

    // the rest: all that is left of the net (19550 − 4887 = 14663) from the liable parties, whose shares
    // cannot cover it: refused, nothing written
    const rest = await refund(res.body.uuid);
    expect(rest.status, rest.text).toBe(422);
    expect(rest.body).toMatchObject({ error: 'INSUFFICIENT_BALANCE' });
    expect(await recipientBalance(server, platform, bia.id)).toMatchObject({ available: 2334, blocked: 0 });
    await expectLedgerOk();
  });

  it('with no liable rule, refunds come from the platform alone', async () => {
    const res = await charge(saleInput({ amount: 10000, split: [{ recipientId: joao.id, percent: 50 }] }));
    expect(res.status, res.text).toBe(201);
    const joaoBefore = await recipientBalance(server, platform, joao.id);
    await moveTo(server, platform, res.body.uuid, 'PAGO');
    const platformPaid = await getBalance(db(), platform.accountId);
    const full = await refund(res.body.uuid);
    expect(full.status, full.text).toBe(202);
    expect(full.body.status).toBe('ESTORNADO');
    // the whole net (10000 − 250) leaves the platform; João keeps his 5000
    expect(platformPaid.available - (await getBalance(db(), platform.accountId)).available).toBe(9750);
    expect((await recipientBalance(server, platform, joao.id)).available - joaoBefore.available).toBe(5000);
    await expectLedgerOk();
  });

  it("a lost dispute takes the liable recipient's part even past its available (negative), and verify accepts it", async () => {
    const dani = await createRecipient(server, platform, { name: 'Dani' });
    const res = await charge(
      saleInput({ amount: 10000, split: [{ recipientId: dani.id, amountCents: 1000, liable: true }] }),
    );
    expect(res.status, res.text).toBe(201);
    await moveTo(server, platform, res.body.uuid, 'PAGO');
    expect(await recipientBalance(server, platform, dani.id)).toMatchObject({ available: 1000 });
    const platformPaid = await getBalance(db(), platform.accountId);
    const opened = await openDispute(server, platform, res.body.uuid, { kind: 'med' });
    expect(opened.status, opened.text).toBe(201);
    // Dani alone is liable: the whole disputed amount is claimed from her 1000, the net (9750) and the fee the
    // dispute does not give back (250); the platform, not liable, keeps its share
    expect(await recipientBalance(server, platform, dani.id)).toEqual({
      available: 1000 - 10000,
      blocked: 10000,
      receivable: 0,
      total: 1000,
    });
    expect(await getBalance(db(), platform.accountId)).toMatchObject({
      available: platformPaid.available,
      blocked: platformPaid.blocked,
    });
    await expectLedgerOk();
    const lost = await decide(server, platform, opened.body.id, 'lost');
    expect(lost.status, lost.text).toBe(200);
    expect(await recipientBalance(server, platform, dani.id)).toMatchObject({
      available: 1000 - 10000,
      blocked: 0,
    });
    expect(await getBalance(db(), platform.accountId)).toMatchObject({
      available: platformPaid.available,
      blocked: platformPaid.blocked,
    });
    await expectLedgerOk();
    // the devolução is the sale's refund, and says who paid it: Dani, all of it, no fee given back
    const [refunded] = (await eventsOf(server, 'sale', res.body.id)).filter(
      (e) => e.event_type === 'sale.refunded',
    );
    expect(JSON.parse(refunded!.webhook_body).refund).toMatchObject({
      amountCents: 10000,
      allocation: [{ party: dani.id, amountCents: 10000, fromReceivableCents: 0, fromAvailableCents: 10000 }],
      feeReturnedCents: 0,
    });
  });

  it('a dispute opened before the fee was shared by liability closes as it opened: the fee on the platform', async () => {
    const eva = await createRecipient(server, platform, { name: 'Eva' });
    const res = await charge(
      saleInput({ amount: 10000, split: [{ recipientId: eva.id, amountCents: 4000, liable: true }] }),
    );
    expect(res.status, res.text).toBe(201);
    await moveTo(server, platform, res.body.uuid, 'PAGO');
    const evaPaid = await recipientBalance(server, platform, eva.id);
    const platformPaid = await getBalance(db(), platform.accountId);
    // a row as migration 283 left the disputes opened before it: no fee parts, the fee the account's
    await db().query(
      `CREATE FUNCTION test_old_dispute() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN NEW.fee_parts := NULL; RETURN NEW; END $$;
       CREATE TRIGGER test_old_dispute BEFORE INSERT ON disputes FOR EACH ROW EXECUTE FUNCTION test_old_dispute()`,
    );
    const opened = await openDispute(server, platform, res.body.uuid, { kind: 'med' }).finally(() =>
      db().query('DROP TRIGGER test_old_dispute ON disputes; DROP FUNCTION test_old_dispute()'),
    );
    expect(opened.status, opened.text).toBe(201);
    expect((await getBalance(db(), platform.accountId)).blocked - platformPaid.blocked).toBe(250);
    const lost = await decide(server, platform, opened.body.id, 'lost');
    expect(lost.status, lost.text).toBe(200);
    // Eva pays the net (9750), the platform the fee (250), each blocked back where it was
    const eva2 = await recipientBalance(server, platform, eva.id);
    const after = await getBalance(db(), platform.accountId);
    expect([evaPaid.available - eva2.available, platformPaid.available - after.available]).toEqual([
      9750, 250,
    ]);
    expect([eva2.blocked, after.blocked]).toEqual([evaPaid.blocked, platformPaid.blocked]);
    await expectLedgerOk();
  });

  it("a lost dispute of a split sale with no liable rule is the platform's alone, fee included", async () => {
    const res = await charge(saleInput({ amount: 10000, split: [{ recipientId: joao.id, percent: 50 }] }));
    expect(res.status, res.text).toBe(201);
    await moveTo(server, platform, res.body.uuid, 'PAGO');
    const joaoPaid = await recipientBalance(server, platform, joao.id);
    const platformPaid = await getBalance(db(), platform.accountId);
    const opened = await openDispute(server, platform, res.body.uuid, { kind: 'med' });
    expect(opened.status, opened.text).toBe(201);
    const lost = await decide(server, platform, opened.body.id, 'lost');
    expect(lost.status, lost.text).toBe(200);
    // the whole 10000 leaves the platform (its net 4750, João's 5000 it answers for, and the fee 250)
    const after = await getBalance(db(), platform.accountId);
    expect(platformPaid.available - after.available).toBe(10000);
    expect(after.blocked).toBe(platformPaid.blocked);
    expect(await recipientBalance(server, platform, joao.id)).toEqual(joaoPaid);
    await expectLedgerOk();
  });

  it('a dispute of part of a split sale holds what losing it takes from the liable party, the fee on the part included', async () => {
    const shop = await createMerchant(server, 'Plataforma Parcial');
    // a fee of 2 % + R$ 0,50, which a part disputed carries its share of
    await db().query('UPDATE accounts SET sale_fee_percent_e4 = 20000, sale_fee_fixed = 50 WHERE id = $1', [
      shop.accountId,
    ]);
    const liable = await createRecipient(server, shop, { name: 'Rita' });
    const other = await createRecipient(server, shop, { name: 'Otto' });
    const open = async (outcome: 'lost' | 'won') => {
      const res = await charge(
        saleInput({
          amount: 10001,
          split: [
            { recipientId: liable.id, percent: 60, liable: true },
            { recipientId: other.id, amountCents: 1001 },
          ],
        }),
        shop,
      );
      expect(res.status, res.text).toBe(201);
      await moveTo(server, shop, res.body.uuid, 'PAGO');
      const before = {
        platform: await getBalance(db(), shop.accountId),
        liable: await recipientBalance(server, shop, liable.id),
        other: await recipientBalance(server, shop, other.id),
      };
      const opened = await openDispute(server, shop, res.body.uuid, { kind: 'med', amountCents: 5001 });
      expect(opened.status, opened.text).toBe(201);
      // the liable recipient holds the part's share of the net, 9751 × 5001 / 10001 = 4875 (rounded down), as
      // a loss takes it, and the fee on the part, 126: all 5001; the platform and the other recipient, not
      // liable, are untouched
      const platform = await getBalance(db(), shop.accountId);
      expect(platform.blocked - before.platform.blocked).toBe(0);
      expect(platform.available - before.platform.available).toBe(0);
      expect(await recipientBalance(server, shop, other.id)).toEqual(before.other);
      const held = await recipientBalance(server, shop, liable.id);
      expect(held.blocked - before.liable.blocked).toBe(5001);
      expect(held.available - before.liable.available).toBe(-5001);
      await expectLedgerOk();
      const closed = await decide(server, shop, opened.body.id, outcome);
      expect(closed.status, closed.text).toBe(200);
      await expectLedgerOk();
      return { before, sale: res.body };
    };

    // won: every balance as it was
    const won = await open('won');
    expect(await recipientBalance(server, shop, liable.id)).toEqual(won.before.liable);
    expect(await recipientBalance(server, shop, other.id)).toEqual(won.before.other);
    expect(await getBalance(db(), shop.accountId)).toMatchObject({
      available: won.before.platform.available,
      blocked: won.before.platform.blocked,
    });

    // lost: the liable recipient pays the part, its net and the fee on it; nobody's blocked left over
    const lost = await open('lost');
    const rita = await recipientBalance(server, shop, liable.id);
    const platform = await getBalance(db(), shop.accountId);
    expect(rita.blocked).toBe(lost.before.liable.blocked);
    expect(platform.blocked).toBe(lost.before.platform.blocked);
    const ritaPaid = lost.before.liable.available - rita.available;
    const platformPaid = lost.before.platform.available - platform.available;
    // each pays what it held
    expect([ritaPaid, platformPaid]).toEqual([5001, 0]);
    expect(await recipientBalance(server, shop, other.id)).toEqual(lost.before.other);
  });

  it('a dispute of part of a split sale without fees holds only the part, from the liable party', async () => {
    const shop = await createMerchant(server, 'Plataforma Sem Taxa');
    await db().query('UPDATE accounts SET sale_fee_percent_e4 = 0, sale_fee_fixed = 0 WHERE id = $1', [
      shop.accountId,
    ]);
    const rui = await createRecipient(server, shop, { name: 'Rui Sem Taxa' });
    for (const outcome of ['won', 'lost'] as const) {
      const res = await charge(
        saleInput({ amount: 10000, split: [{ recipientId: rui.id, percent: 30, liable: true }] }),
        shop,
      );
      expect(res.status, res.text).toBe(201);
      await moveTo(server, shop, res.body.uuid, 'PAGO');
      const before = [await getBalance(db(), shop.accountId), await recipientBalance(server, shop, rui.id)];
      const opened = await openDispute(server, shop, res.body.uuid, { kind: 'med', amountCents: 2500 });
      expect(opened.status, opened.text).toBe(201);
      const held = await recipientBalance(server, shop, rui.id);
      expect([held.available - before[1]!.available, held.blocked - before[1]!.blocked]).toEqual([
        -2500, 2500,
      ]);
      const closed = await decide(server, shop, opened.body.id, outcome);
      expect(closed.status, closed.text).toBe(200);
      const after = [await getBalance(db(), shop.accountId), await recipientBalance(server, shop, rui.id)];
      expect(after.map((b, i) => before[i]!.available - b.available)).toEqual([
        0,
        outcome === 'lost' ? 2500 : 0,
      ]);
      expect(after.map((b, i) => b.blocked - before[i]!.blocked)).toEqual([0, 0]);
      await expectLedgerOk();
    }
  });

  it('two liable parties hold, for a dispute of part of the sale, to the cent what its loss takes from each', async () => {
    const shop = await createMerchant(server, 'Plataforma Dois Responsáveis');
    // a fee of 8.98 %: 898 on 10000, paid by the second recipient
    await db().query('UPDATE accounts SET sale_fee_percent_e4 = 89800, sale_fee_fixed = 0 WHERE id = $1', [
      shop.accountId,
    ]);
    const first = await createRecipient(server, shop, { name: 'Rui' });
    const second = await createRecipient(server, shop, { name: 'Rosa' });
    const res = await charge(
      saleInput({
        amount: 10000,
        split: [
          { recipientId: first.id, amountCents: 3000, liable: true },
          { recipientId: second.id, amountCents: 2000, liable: true, chargeFees: true },
        ],
      }),
      shop,
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body.split!.map((p) => p.netCents)).toEqual([3000, 1102, 5000]);
    await moveTo(server, shop, res.body.uuid, 'PAGO');
    const before = await Promise.all([first, second].map((r) => recipientBalance(server, shop, r.id)));
    const opened = await openDispute(server, shop, res.body.uuid, { kind: 'med', amountCents: 3000 });
    expect(opened.status, opened.text).toBe(201);
    // the part's net, 9102 × 3000 / 10000 = 2730, shared 3000 : 1102 as a refund shares it: 1997 and 733; the
    // fee on the part, 270, shared as what each holds, 3000 : 1102: 197.4 and 72.5, rounded down, and the cent
    // left to the most due (3000 / 198 against 1102 / 73): 198 and 72. The platform, not liable, holds nothing
    const platformBefore = await getBalance(db(), shop.accountId);
    const held = await Promise.all([first, second].map((r) => recipientBalance(server, shop, r.id)));
    expect(held.map((h, i) => h.blocked - before[i]!.blocked)).toEqual([1997 + 198, 733 + 72]);
    const lost = await decide(server, shop, opened.body.id, 'lost');
    expect(lost.status, lost.text).toBe(200);
    const after = await Promise.all([first, second].map((r) => recipientBalance(server, shop, r.id)));
    expect(after.map((a, i) => before[i]!.available - a.available)).toEqual([1997 + 198, 733 + 72]);
    expect(await getBalance(db(), shop.accountId)).toMatchObject({
      available: platformBefore.available,
      blocked: platformBefore.blocked,
    });
    expect(after.map((a, i) => a.blocked - before[i]!.blocked)).toEqual([0, 0]);
    await expectLedgerOk();
    // the part's refund says so, to the cent: each party's share of the net and of the fee on the part
    const refunds = await call<{ amountCents: number; allocation: unknown[]; feeReturnedCents: number }[]>(
      'GET',
      `${server.url}/api/transactions/${res.body.uuid}/refunds`,
      { headers: shop.keys },
    );
    expect(refunds.body).toEqual([
      expect.objectContaining({
        amountCents: 3000,
        allocation: [
          {
            party: first.id,
            amountCents: 1997 + 198,
            fromReceivableCents: 0,
            fromAvailableCents: 1997 + 198,
          },
          { party: second.id, amountCents: 733 + 72, fromReceivableCents: 0, fromAvailableCents: 733 + 72 },
        ],
        feeReturnedCents: 0,
      }),
    ]);
  });
});
