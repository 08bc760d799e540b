/**
 * Refunds from the sale's receivables first, and who paid (decisions.md, "Refunds"), through the API: a split
 * card sale's refund takes each liable party's part from that sale's installments not yet paid out (the last
 * ones first) before its available balance; one that would take any party's available below zero is refused as
 * a whole (422, the party named, what it lacks in cents); every refund object says who paid (`allocation`) and
 * what fee it gave back; `ledger verify` stays clean.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../../../src/accounts/accounts.js';
import { verifyLedger } from '../../../src/ledger/verify.js';
import { cardBody, cardEnding } from '../../cards/cards.js';
import { createRecipient, recipientBalance } from '../../recipients/fixtures.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { startServer, type TestServer } from '../../support/server.js';
import { waitUntil } from '../../support/wait.js';
import { eventsOf, moveTo, saleInput } from '../fixtures.js';

interface Allocation {
  party: string;
  amountCents: number;
  fromReceivableCents: number;
  fromAvailableCents: number;
}
interface Refund {
  id: string;
  amountCents: number;
  status: string;
  allocation: Allocation[];
  feeReturnedCents: number;
}

let server: TestServer;
let platform: TestMerchant;
const db = () => server.runtime.platform.db;

beforeAll(async () => {
  server = await startServer({ workers: false });
  platform = await createMerchant(server, 'Marketplace');
  // 2 % + 0.50 a sale, paid by the platform
  await updateAccount(db(), platform.accountId, { saleFeePercentE4: 20000, saleFeeFixed: 50 });
});
afterAll(() => server?.close());

const charge = (body: unknown) =>
  call<{ id: number; uuid: string; status: string; message?: string }>(
    'POST',
    `${server.url}/api/transactions`,
    {
      headers: platform.keys,
      body,
    },
  );
const refund = (id: string, amountCents?: number) =>
  call<{ status: string; refund: Refund; refundedAmount: number; message?: string; error?: string }>(
    'POST',
    `${server.url}/api/transactions/${id}/refund`,
    { headers: platform.keys, body: amountCents === undefined ? {} : { amountCents } },
  );
async function cardToken(): Promise<string> {
  const tok = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
    headers: { 'x-api-public-key': platform.publicKey },
    body: cardBody(cardEnding('0')),
  });
  return tok.body.token;
}
const installmentsOf = async (saleId: number, recipientUuid: string) =>
  (
    await db().query<{ installment: number; amount: string; settled: boolean }>(
      `SELECT r.installment, r.amount, r.settled_at IS NOT NULL AS settled FROM receivables r
         JOIN recipients x ON x.id = r.recipient_id WHERE r.sale_id = $1 AND x.uuid = $2 ORDER BY r.installment`,
      [saleId, recipientUuid],
    )
  ).map((r) => Number(r.amount));
const expectLedgerOk = async () => expect((await verifyLedger(db())).problems).toEqual([]);

describe('a split card sale’s refund', () => {
  it('comes from the sale’s installments first, last ones first; the answer, the list and sale.refunded say who paid', async () => {
    const bia = await createRecipient(server, platform, { name: 'Bia' });
    // Bia has 527 cents of her own in available, from a PIX sale's share
    const pix = await charge(
      saleInput({ amount: 1000, split: [{ recipientId: bia.id, amountCents: 527, liable: true }] }),
    );
    await moveTo(server, platform, pix.body.uuid, 'PAGO');
    expect(await recipientBalance(server, platform, bia.id)).toMatchObject({ available: 527 });

    // a card sale in 3 installments: Bia's 9000 goes to receivable (3000 a month)
    const sale = await charge(
      saleInput({
        amount: 20000,
        paymentMethod: 'CREDIT_CARD',
        installments: 3,
        card: { token: await cardToken() },
        split: [{ recipientId: bia.id, amountCents: 9000, liable: true }],
      }),
    );
    expect(sale.status, sale.text).toBe(201);
    expect(sale.body.status).toBe('PAGO');
    expect(await installmentsOf(sale.body.id, bia.id)).toEqual([3000, 3000, 3000]);

    // 6000 of 20000: the net's share is 19550 × 6000 / 20000 = 5865; Bia alone is liable, so she pays it all,
    // and the fee gives back 6000 − 5865 = 135
    const partial = await refund(sale.body.uuid, 6000);
    expect(partial.status, partial.text).toBe(202);
    const made = partial.body.refund;
    expect(made.feeReturnedCents).toBe(135);
    expect(made.allocation).toEqual([
      { party: bia.id, amountCents: 5865, fromReceivableCents: 5865, fromAvailableCents: 0 },
    ]);
    expect(made.allocation.reduce((s, a) => s + a.amountCents, 0) + made.feeReturnedCents).toBe(6000);
    // the last installments first: 3000 and 2865 of the second
    expect(await installmentsOf(sale.body.id, bia.id)).toEqual([3000, 135, 0]);
    // her own available is untouched
    expect(await recipientBalance(server, platform, bia.id)).toMatchObject({
      available: 527,
      receivable: 3135,
    });

    const listed = await call<Refund[]>('GET', `${server.url}/api/transactions/${sale.body.uuid}/refunds`, {
      headers: platform.keys,
    });
    expect(listed.body.map((r) => [r.allocation, r.feeReturnedCents])).toEqual([[made.allocation, 135]]);
    // the panel's door (its sale page lists them); another account's panel finds nothing
    const byPanel = await call<Refund[]>('GET', `${server.url}/api/sales/${sale.body.uuid}/refunds`, {
      headers: platform.panel,
    });
    expect(byPanel.status, byPanel.text).toBe(200);
    expect(byPanel.body).toEqual(listed.body);
    const stranger = await createMerchant(server, 'Outra loja');
    const hidden = await call<{ success: boolean; error: { code: string } }>(
      'GET',
      `${server.url}/api/sales/${sale.body.uuid}/refunds`,
      { headers: stranger.panel },
    );
    expect(hidden.status).toBe(404);
    expect(hidden.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    const facts = (await eventsOf(server, 'sale', sale.body.id)).filter(
      (e) => e.event_type === 'sale.refunded',
    );
    expect(facts.map((f) => JSON.parse(f.webhook_body).refund)).toEqual([
      expect.objectContaining({ id: made.id, allocation: made.allocation, feeReturnedCents: 135 }),
    ]);
    await expectLedgerOk();

    // the rest of Bia's part (19550 − 5865 = 13685 of the net) is more than her 3135 of installments and 527
    // of available: refused as a whole, naming her and what she lacks; nothing written
    const rest = await refund(sale.body.uuid);
    expect(rest.status, rest.text).toBe(422);
    expect(rest.body.error).toBe('INSUFFICIENT_BALANCE');
    expect(rest.body.message).toContain(`Recipient ${bia.id} (Bia) lacks ${13685 - 3135 - 527} cents`);
    expect(await installmentsOf(sale.body.id, bia.id)).toEqual([3000, 135, 0]);
    expect(await recipientBalance(server, platform, bia.id)).toMatchObject({
      available: 527,
      blocked: 0,
      receivable: 3135,
    });
    await expectLedgerOk();
  });

  it('the fee a refund gives back leaves the gateway’s revenue; refunds of a cent each add up as one refund would', async () => {
    const sale = await charge(saleInput({ amount: 10000 }));
    expect(sale.status, sale.text).toBe(201);
    await moveTo(server, platform, sale.body.uuid, 'PAGO');
    // what the sale's entries left in the gateway's revenue and at the processor
    const books = async () => {
      const rows = await db().query<{ code: string; sum: string }>(
        `SELECT la.code, sum(p.amount) AS sum FROM postings p
           JOIN journal_entries e ON e.id = p.entry_id AND e.ref_type = 'sale' AND e.ref_id = $1
           JOIN ledger_accounts la ON la.id = p.ledger_account_id AND la.code IN ('system:fees', 'system:processor')
          GROUP BY la.code`,
        [sale.body.id],
      );
      return Object.fromEntries(rows.map((r) => [r.code, Number(r.sum)]));
    };
    // 2 % + 0.50: a fee of 250, a net of 9750
    expect(await books()).toEqual({ 'system:fees': 250, 'system:processor': -10000 });

    // ten refunds of 1 cent: their shares are taken on the running total (9750 × 10 / 10000 = 9 of the net in
    // all), as one refund of 10 cents would, not 0 each with every cent given back by the fee
    const cents: Refund[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await refund(sale.body.uuid, 1);
      expect(r.status, r.text).toBe(202);
      cents.push(r.body.refund);
    }
    expect(cents.reduce((s, r) => s + r.feeReturnedCents, 0)).toBe(1);
    for (const r of cents) {
      expect(r.allocation.reduce((s, a) => s + a.amountCents, 0) + r.feeReturnedCents).toBe(1);
    }
    // the fee given back leaves the revenue for the processor, which paid the payer the whole refund
    expect(await books()).toEqual({ 'system:fees': 249, 'system:processor': -10000 + 10 });

    // the rest: the whole net and the whole fee are back, nothing of the sale is left in the books
    const rest = await refund(sale.body.uuid);
    expect(rest.status, rest.text).toBe(202);
    expect(rest.body.refund.feeReturnedCents).toBe(249);
    expect(await books()).toEqual({ 'system:fees': 0, 'system:processor': 0 });
    await expectLedgerOk();
  });

  /** A new merchant's paid PIX sale of R$ 500,00, a cashout of all it made, and its refund of R$ 10,00. */
  const paidSale = async (name: string) => {
    const other = await createMerchant(server, name);
    const sale = await call<{ uuid: string }>('POST', `${server.url}/api/transactions`, {
      headers: other.keys,
      body: saleInput({ amount: 50000 }),
    });
    await moveTo(server, other, sale.body.uuid, 'PAGO');
    const paid = await call<{ available: number }>('GET', `${server.url}/api/public/balance`, {
      headers: other.keys,
    });
    return {
      other,
      cashOutAll: () =>
        call('POST', `${server.url}/api/public/cashout`, {
          headers: other.keys,
          body: { amount: paid.body.available / 100, pixKey: '52998224725' },
        }),
      refund: () =>
        call<{ error: string; message: string }>(
          'POST',
          `${server.url}/api/transactions/${sale.body.uuid}/refund`,
          {
            headers: other.keys,
            body: { amountCents: 1000 },
          },
        ),
    };
  };

  it('a PIX sale’s refund that the platform’s available cannot cover is refused, naming the platform', async () => {
    const { cashOutAll, refund } = await paidSale('Loja sem saldo');
    // the money left: a withdrawal took all of it
    const out = await cashOutAll();
    expect(out.status, out.text).toBe(201);
    const refused = await refund();
    expect(refused.status).toBe(422);
    expect(refused.body.message).toMatch(/^The platform's available balance lacks \d+ cents for this refund/);
  });

  it('a refund whose balance a cashout took after its check (the entry’s guard refuses it) names the party too', async () => {
    const { other, cashOutAll, refund } = await paidSale('Loja que sacou durante');
    // the balance row held while a cashout of all of it, then the refund (its check passed: the balance was
    // there), reach their guarded debits; let go, the cashout's comes first and the refund's guard refuses
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let locked = false;
    const holder = db().tx(async (tx) => {
      await tx.query(
        `SELECT 1 FROM ledger_accounts WHERE account_id = $1 AND bucket = 'available' FOR UPDATE`,
        [other.accountId],
      );
      locked = true;
      await held;
    });
    const waiting = async (n: number) =>
      waitUntil(async () => {
        const [r] = await db().query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%ledger_accounts%'`,
        );
        return r!.n >= n || undefined;
      });
    await waitUntil(() => locked || undefined);
    const out = cashOutAll();
    await waiting(1);
    const refused = refund();
    await waiting(2);
    release();
    await holder;
    expect((await out).status).toBe(201);
    const answer = await refused;
    expect(answer.status, answer.text).toBe(422);
    expect(answer.body.error).toBe('INSUFFICIENT_BALANCE');
    expect(answer.body.message).toMatch(/^The platform's available balance lacks \d+ cents for this refund/);
    await expectLedgerOk();
  });
});

describe('the sandbox’s report of a refund in full (POST /api/sandbox/sales/{id}/status ESTORNADO)', () => {
  const report = (m: TestMerchant, uuid: string) =>
    call<{
      status: string;
      refundedAmount: number;
      success?: boolean;
      error?: { code: string; message: string };
    }>('POST', `${server.url}/api/sandbox/sales/${uuid}/status`, {
      headers: m.keys,
      body: { status: 'ESTORNADO' },
    });
  const refundsListed = async (m: TestMerchant, uuid: string) =>
    (await call<Refund[]>('GET', `${server.url}/api/transactions/${uuid}/refunds`, { headers: m.keys })).body;

  it('is refused as the refund route refuses it when available cannot cover it: 422 INSUFFICIENT_BALANCE, nothing written, no balance below zero', async () => {
    const m = await createMerchant(server, 'Loja que sacou');
    const sale = await call<{ uuid: string; netAmount: number }>('POST', `${server.url}/api/transactions`, {
      headers: m.keys,
      body: saleInput({ amount: 50000 }),
    });
    await moveTo(server, m, sale.body.uuid, 'PAGO');
    // the money left by a cashout of all of it
    const before = await call<{ available: number }>('GET', `${server.url}/api/public/balance`, {
      headers: m.keys,
    });
    const out = await call('POST', `${server.url}/api/public/cashout`, {
      headers: m.keys,
      body: { amount: before.body.available / 100, pixKey: '52998224725' },
    });
    expect(out.status, out.text).toBe(201);
    const drained = await call('GET', `${server.url}/api/public/balance`, { headers: m.keys });
    const refused = await report(m, sale.body.uuid);
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body).toEqual({
      success: false,
      error: {
        code: 'INSUFFICIENT_BALANCE',
        message: expect.stringMatching(/^The platform's available balance lacks \d+ cents for this refund/),
      },
    });
    const after = await call<{ status: string; refundedAmount: number }>(
      'GET',
      `${server.url}/api/transactions/${sale.body.uuid}`,
      { headers: m.keys },
    );
    expect(after.body).toMatchObject({ status: 'PAGO', refundedAmount: 0 });
    expect(await refundsListed(m, sale.body.uuid)).toEqual([]);
    expect((await call('GET', `${server.url}/api/public/balance`, { headers: m.keys })).body).toEqual(
      drained.body,
    );
    await expectLedgerOk();
  });

  it('made, is a refund of what was left: listed with its allocation beside an earlier partial one, adding up to what was paid', async () => {
    const sale = await charge(saleInput({ amount: 10000 }));
    await moveTo(server, platform, sale.body.uuid, 'PAGO');
    const part = await refund(sale.body.uuid, 3000);
    expect(part.status, part.text).toBe(202);
    const reported = await report(platform, sale.body.uuid);
    expect(reported.status, reported.text).toBe(200);
    expect(reported.body).toMatchObject({ status: 'ESTORNADO', refundedAmount: 10000 });
    const listed = await refundsListed(platform, sale.body.uuid);
    expect(listed.map((r) => [r.amountCents, r.status])).toEqual([
      [3000, 'succeeded'],
      [7000, 'succeeded'],
    ]);
    for (const r of listed) {
      const parts = r.allocation.reduce((sum, a) => sum + a.amountCents, 0);
      expect(parts + r.feeReturnedCents).toBe(r.amountCents);
    }
    const facts = (await eventsOf(server, 'sale', sale.body.id)).filter(
      (e) => e.event_type === 'sale.refunded',
    );
    expect(facts.map((f) => JSON.parse(f.webhook_body).refund.amountCents)).toEqual([3000, 7000]);
    // reported again: the status it has, nothing more
    const again = await report(platform, sale.body.uuid);
    expect(again.status, again.text).toBe(200);
    expect(await refundsListed(platform, sale.body.uuid)).toHaveLength(2);
    await expectLedgerOk();
  });
});
