import { afterAll, beforeAll, expect, it } from 'vitest';
import { updateAccount } from '../../../src/accounts/accounts.js';
import { getBalance } from '../../../src/ledger/ledger.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { startServer, type TestServer } from '../../support/server.js';
import { waitUntil } from '../../support/wait.js';
import { moveTo, sandboxSale } from '../fixtures.js';

let server: TestServer;
let merchant: TestMerchant;

beforeAll(async () => {
  server = await startServer({ workers: true });
  merchant = await createMerchant(server);
  await updateAccount(server.runtime.platform.db, merchant.accountId, { reservePercentE4: 200000 });
});
afterAll(() => server?.close());

it('the release job, once due, moves the reserve from blocked to available (worker path)', async () => {
  const { db } = server.runtime.platform;
  const sale = await sandboxSale(server, merchant, { amount: 10000 });
  await moveTo(server, merchant, sale.uuid, 'PAGO');
  expect(await getBalance(db, merchant.accountId)).toEqual({ available: 8000, blocked: 2000, total: 10000 });
  // Bring the scheduled job forward instead of waiting 30 days.
  const moved = await db.query(
    `UPDATE pgboss.job SET start_after = now() WHERE name = 'sales.release-reserve' AND (data->>'saleId')::bigint = $1
     RETURNING id`,
    [sale.id],
  );
  expect(moved).toHaveLength(1);
  const after = await waitUntil(async () => {
    const b = await getBalance(db, merchant.accountId);
    return b.blocked === 0 && b;
  });
  expect(after).toEqual({ available: 10000, blocked: 0, total: 10000 });
});
