import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../src/ledger/verify.js';
import { moveTo, saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { bypassLedgerGuards } from '../support/ledger.js';
import { startServer, type TestServer } from '../support/server.js';
import { createRecipient } from './fixtures.js';

let server: TestServer;
let platform: TestMerchant;

beforeAll(async () => {
  server = await startServer({ workers: false });
  platform = await createMerchant(server, 'Marketplace');
});
afterAll(() => server?.close());

const db = () => server.runtime.platform.db;
const idOf = async (uuid: string) =>
  Number((await db().query<{ id: string }>('SELECT id FROM recipients WHERE uuid = $1', [uuid]))[0]!.id);

describe('gateway ledger verify and recipients', () => {
  it("names a recipient's corrupted balance and a negative available no dispute explains", async () => {
    const r = await createRecipient(server, platform);
    const sale = await call<{ uuid: string }>('POST', `${server.url}/api/transactions`, {
      headers: platform.keys,
      body: saleInput({ amount: 5000, split: [{ recipientId: r.id, amountCents: 2000 }] }),
    });
    expect(sale.status, sale.text).toBe(201);
    await moveTo(server, platform, sale.body.uuid, 'PAGO');
    expect((await verifyLedger(db())).problems).toEqual([]);
    const id = await idOf(r.id);
    const code = `recipient:${id}:available`;

    await db().query(`UPDATE ledger_accounts SET balance = balance + 1 WHERE code = $1`, [code]);
    try {
      expect((await verifyLedger(db())).problems).toEqual([
        { kind: 'balance_mismatch', account: code, expected: 2000, actual: 2001 },
      ]);
    } finally {
      await db().query(`UPDATE ledger_accounts SET balance = balance - 1 WHERE code = $1`, [code]);
    }

    // a posting that takes the recipient below zero outside any dispute: balanced, maintained, still refused
    const [entry] = await bypassLedgerGuards<{ id: string }>(
      db(),
      `WITH e AS (INSERT INTO journal_entries (kind, ref_type, ref_id) VALUES ('test.overdraw', 'test', 0) RETURNING id),
            p AS (INSERT INTO postings (entry_id, ledger_account_id, amount)
                  SELECT e.id, la.id, CASE la.code WHEN $1 THEN -3000 ELSE 3000 END
                    FROM e, ledger_accounts la WHERE la.code IN ($1, 'system:payouts'))
       SELECT id FROM e`,
      [code],
    );
    await db().query('UPDATE ledger_accounts SET balance = balance - 3000 WHERE code = $1', [code]);
    const report = await verifyLedger(db());
    expect(report.problems).toEqual([
      { kind: 'negative_available', account: code, actual: -1000, expected: 0 },
    ]);
    expect(entry).toBeDefined();
  });
});
