import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeApiKeyAuth } from '../support/auth-checks.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { bypassLedgerGuards } from '../support/ledger.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let merchant: TestMerchant;

beforeAll(async () => {
  server = await startServer();
  merchant = await createMerchant(server);
});
afterAll(() => server?.close());

describe('GET /api/public/balance', () => {
  it('answers zeros in cents for a new account', async () => {
    const res = await call('GET', `${server.url}/api/public/balance`, { headers: merchant.keys });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ available: 0, blocked: 0, total: 0, receivable: 0 });
  });

  it('creates the missing balance record under concurrent first requests', async () => {
    const { db } = server.runtime.platform;
    await bypassLedgerGuards(db, 'DELETE FROM ledger_accounts WHERE account_id = $1', [merchant.accountId]);
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        call('GET', `${server.url}/api/public/balance`, { headers: merchant.keys }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    for (const r of results) expect(r.body).toEqual({ available: 0, blocked: 0, total: 0, receivable: 0 });
    const rows = await db.query('SELECT bucket FROM ledger_accounts WHERE account_id = $1', [
      merchant.accountId,
    ]);
    expect(rows).toHaveLength(3);
  });

  it('reports total = available + blocked from the maintained ledger balances', async () => {
    const { db } = server.runtime.platform;
    await db.query(
      `UPDATE ledger_accounts SET balance = 12345 WHERE account_id = $1 AND bucket = 'available'`,
      [merchant.accountId],
    );
    await db.query(`UPDATE ledger_accounts SET balance = 55 WHERE account_id = $1 AND bucket = 'blocked'`, [
      merchant.accountId,
    ]);
    const res = await call('GET', `${server.url}/api/public/balance`, { headers: merchant.keys });
    expect(res.body).toEqual({ available: 12345, blocked: 55, total: 12400, receivable: 0 });
  });

  it('reads that arrive together (one query for them all) each answer their own merchant', async () => {
    const { db } = server.runtime.platform;
    const merchants = await Promise.all(
      Array.from({ length: 12 }, (_, i) => createMerchant(server, `M${i}`)),
    );
    for (const [i, m] of merchants.entries()) {
      await db.query(
        `UPDATE ledger_accounts SET balance = $2 WHERE account_id = $1 AND bucket = 'available'`,
        [m.accountId, 1000 + i],
      );
    }
    const asked = Array.from({ length: 240 }, (_, k) => merchants[(k * 7) % merchants.length]!);
    const answers = await Promise.all(
      asked.map((m) => call('GET', `${server.url}/api/public/balance`, { headers: m.keys })),
    );
    for (const [k, res] of answers.entries()) {
      const i = merchants.indexOf(asked[k]!);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ available: 1000 + i, blocked: 0, total: 1000 + i, receivable: 0 });
    }
  });

  it('a read that starts after a change commits sees it, however many reads are under way', async () => {
    const { db } = server.runtime.platform;
    const read = () =>
      call<{ available: number }>('GET', `${server.url}/api/public/balance`, { headers: merchant.keys });
    const background = Array.from({ length: 50 }, read);
    for (let k = 1; k <= 30; k++) {
      await db.query(
        `UPDATE ledger_accounts SET balance = $2 WHERE account_id = $1 AND bucket = 'available'`,
        [merchant.accountId, k],
      );
      background.push(read()); // in flight beside the checked reads
      const after = await Promise.all([read(), read(), read()]);
      for (const res of after) expect(res.body.available).toBe(k);
    }
    await Promise.all(background);
  });

  it('answers 401 in shape E without keys', async () => {
    const res = await call('GET', `${server.url}/api/public/balance`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'UNAUTHORIZED', message: expect.any(String) });
  });

  it('answers 500 in shape E without internals when the database fails', async () => {
    const { db } = server.runtime.platform;
    await call('GET', `${server.url}/api/public/balance`, { headers: merchant.keys }); // keys cached
    server.logs.expect(/relation "ledger_accounts" does not exist/);
    await db.query('ALTER TABLE ledger_accounts RENAME TO ledger_accounts_away');
    try {
      const res = await call('GET', `${server.url}/api/public/balance`, { headers: merchant.keys });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: 'INTERNAL_ERROR', message: 'Internal server error' });
      expect(res.text).not.toContain('ledger_accounts');
    } finally {
      await db.query('ALTER TABLE ledger_accounts_away RENAME TO ledger_accounts');
    }
  });
});

describeApiKeyAuth({ method: 'GET', path: '/api/public/balance', shape: 'E' }, () => server);
