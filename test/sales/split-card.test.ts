import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settleDueReceivables } from '../../src/ledger/receivables.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { cardBody, cardEnding } from '../cards/cards.js';
import { createRecipient, recipientBalance } from '../recipients/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { saleInput } from './fixtures.js';

let server: TestServer;
let platform: TestMerchant;
const db = () => server.runtime.platform.db;

beforeAll(async () => {
  server = await startServer({ workers: false, env: { CARD_SETTLEMENT_DAYS: '30' } });
  platform = await createMerchant(server, 'Marketplace');
});
afterAll(() => server?.close());

/** The sale's payments the sandbox acquirer has captured (charged to the payer). */
async function capturedAtAcquirer(saleId: number): Promise<number> {
  const [row] = await db().query<{ n: number }>(
    `SELECT count(*)::int AS n FROM sandbox_acquirer_payments
      WHERE order_id = (SELECT order_id FROM card_payments WHERE sale_id = $1) AND state = 'captured'`,
    [saleId],
  );
  return row!.n;
}

describe('a split card sale', () => {
  it("puts each party's share in its own receivable bucket, as installments of its own", async () => {
    const r = await createRecipient(server, platform);
    const tok = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
      headers: { 'x-api-public-key': platform.publicKey },
      body: cardBody(cardEnding('0')),
    });
    expect(tok.status, tok.text).toBe(201);
    const res = await call<{ id: number; status: string; netAmount: number; split: { netCents: number }[] }>(
      'POST',
      `${server.url}/api/transactions`,
      {
        headers: platform.keys,
        body: saleInput({
          amount: 30001,
          paymentMethod: 'CREDIT_CARD',
          installments: 3,
          card: { token: tok.body.token },
          split: [{ recipientId: r.id, percent: 50 }],
        }),
      },
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body.status).toBe('PAGO');
    const [share, platformNet] = res.body.split.map((p) => p.netCents);
    expect(share).toBe(15000);
    expect(share! + platformNet!).toBe(res.body.netAmount);
    // (total is an account's: available + blocked; the installments to come are its receivable)
    expect(await recipientBalance(server, platform, r.id)).toEqual({
      available: 0,
      blocked: 0,
      receivable: 15000,
      total: 0,
    });
    const rows = await db().query<{ recipient_id: string | null; account_id: string | null; amount: string }>(
      'SELECT recipient_id, account_id, amount FROM receivables WHERE sale_id = $1 ORDER BY recipient_id NULLS LAST, installment',
      [res.body.id],
    );
    expect(rows.filter((x) => x.recipient_id !== null).map((x) => Number(x.amount))).toEqual([
      5000, 5000, 5000,
    ]);
    const mine = rows.filter((x) => x.account_id !== null).map((x) => Number(x.amount));
    expect(mine).toHaveLength(3);
    expect(mine.reduce((a, b) => a + b, 0)).toBe(platformNet);
    expect((await verifyLedger(db())).problems).toEqual([]);

    // the first installments fall due: the daily job moves each party's to its own available
    await db().query(
      'UPDATE receivables SET due_date = due_date - 30 WHERE sale_id = $1 AND installment = 1',
      [res.body.id],
    );
    await settleDueReceivables(db());
    expect(await recipientBalance(server, platform, r.id)).toMatchObject({
      available: 5000,
      receivable: 10000,
    });
    expect((await verifyLedger(db())).problems).toEqual([]);
  });

  it('a capture for less that the split cannot take is refused before the acquirer charges it', async () => {
    const fixed = await createRecipient(server, platform);
    const payer = await createRecipient(server, platform);
    const tok = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
      headers: { 'x-api-public-key': platform.publicKey },
      body: cardBody(cardEnding('0')),
    });
    const sale = await call<{ id: number; status: string }>('POST', `${server.url}/api/transactions`, {
      headers: platform.keys,
      body: saleInput({
        amount: 10000,
        paymentMethod: 'CREDIT_CARD',
        capture: false,
        card: { token: tok.body.token },
        split: [
          { recipientId: fixed.id, amountCents: 6000 },
          { recipientId: payer.id, percent: 20, chargeFees: true },
        ],
      }),
    });
    expect(sale.status, sale.text).toBe(201);
    expect(sale.body.status).toBe('EM_PROCESSAMENTO');
    const capture = (amountCents: number) =>
      call<{ status?: string; error?: string; message?: string }>(
        'POST',
        `${server.url}/api/transactions/${sale.body.id}/capture`,
        { headers: platform.keys, body: { amountCents } },
      );
    // 7000 leaves the fee payer 7000 − the fee − 6000 − the platform's 2000: below zero
    const refused = await capture(7000);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body).toMatchObject({ error: 'VALIDATION_ERROR' });
    expect(refused.body.message).toContain(`the split's fee payer (recipient ${payer.id})`);
    // the acquirer was not asked: the authorization is whole and may still be captured
    const [payment] = await db().query<{ state: string }>(
      'SELECT state FROM card_payments WHERE sale_id = $1',
      [sale.body.id],
    );
    expect(payment!.state).toBe('authorized');
    expect(await capturedAtAcquirer(sale.body.id)).toBe(0);
    // an amount the split can take is captured: the fee payer absorbs the difference, and the Sale says so as the
    // ledger writes it (its parties' nets add up to its net)
    const captured = await call<{
      status: string;
      netAmount: number;
      split: { recipientId: string | null; netCents: number }[];
    }>('POST', `${server.url}/api/transactions/${sale.body.id}/capture`, {
      headers: platform.keys,
      body: { amountCents: 9000 },
    });
    expect(captured.status, captured.text).toBe(200);
    expect(captured.body.status).toBe('PAGO');
    expect(captured.body.split.map((p) => p.netCents)).toEqual([6000, 1000, 2000]);
    expect(captured.body.split.reduce((sum, p) => sum + p.netCents, 0)).toBe(captured.body.netAmount);
    expect((await recipientBalance(server, platform, payer.id)).receivable).toBe(1000);
    expect((await recipientBalance(server, platform, fixed.id)).receivable).toBe(6000);
    expect((await verifyLedger(db())).problems).toEqual([]);
  });

  it('a capture for less than the fee is refused before the acquirer charges it', async () => {
    const tok = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
      headers: { 'x-api-public-key': platform.publicKey },
      body: cardBody(cardEnding('0')),
    });
    const sale = await call<{ id: number }>('POST', `${server.url}/api/transactions`, {
      headers: platform.keys,
      body: saleInput({
        amount: 10000,
        paymentMethod: 'CREDIT_CARD',
        capture: false,
        card: { token: tok.body.token },
      }),
    });
    expect(sale.status, sale.text).toBe(201);
    await db().query('UPDATE sales SET fee_fixed = 99 WHERE id = $1', [sale.body.id]);
    const refused = await call<{ message: string }>(
      'POST',
      `${server.url}/api/transactions/${sale.body.id}/capture`,
      { headers: platform.keys, body: { amountCents: 50 } },
    );
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.message).toContain('does not cover');
    expect(await capturedAtAcquirer(sale.body.id)).toBe(0);
  });
});
