import { afterAll, beforeAll, expect, it } from 'vitest';
import { verifyLedger } from '../../../src/ledger/verify.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { fundMerchant } from '../../support/ledger.js';
import { startServer, type TestServer } from '../../support/server.js';

let server: TestServer;
let m: TestMerchant;

beforeAll(async () => {
  server = await startServer();
  m = await createMerchant(server);
  await fundMerchant(server.runtime.platform.db, m.accountId, 100_000);
});
afterAll(() => server?.close());

it('accepts exactly 10 of 40 parallel cashouts of 100.00 against 1,000.00 available', async () => {
  const { db } = server.runtime.platform;
  let lowest = Number.POSITIVE_INFINITY;
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      const [row] = await db.query<{ balance: number }>(
        `SELECT balance FROM ledger_accounts WHERE account_id = $1 AND bucket = 'available'`,
        [m.accountId],
      );
      lowest = Math.min(lowest, row!.balance);
      await new Promise((r) => setTimeout(r, 1));
    }
  })();
  const results = await Promise.all(
    Array.from({ length: 40 }, () =>
      call<Record<string, unknown>>('POST', `${server.url}/api/public/cashout`, {
        headers: m.keys,
        body: { amount: 100, pixKey: '52998224725' },
      }),
    ),
  );
  watching = false;
  await watcher;
  const accepted = results.filter((r) => r.status === 201);
  const refused = results.filter((r) => r.status !== 201);
  expect(accepted).toHaveLength(10);
  expect(refused).toHaveLength(30);
  for (const r of refused) {
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ message: 'Insufficient available balance', errorType: 'INSUFFICIENT_BALANCE' });
  }
  expect(lowest).toBeGreaterThanOrEqual(0);
  const balance = await call('GET', `${server.url}/api/public/balance`, { headers: m.keys });
  expect(balance.body).toMatchObject({ available: 0, total: 100_000 });
  const [count] = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM withdrawals WHERE account_id = $1',
    [m.accountId],
  );
  expect(count!.n).toBe(10);
  expect((await verifyLedger(db)).ok).toBe(true);
});
