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
});
