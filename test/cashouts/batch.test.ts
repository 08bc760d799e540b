import { afterAll, beforeAll, expect, it } from 'vitest';
import { createBatch } from '../../src/cashouts/create-batch.js';
import { requestHash } from '../../src/cashouts/request.js';
import { getBalance } from '../../src/ledger/ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { AppError } from '../../src/platform/errors.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { fundMerchant } from '../support/ledger.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let m: TestMerchant;

beforeAll(async () => {
  server = await startServer({ workers: false });
  m = await createMerchant(server);
  await fundMerchant(server.runtime.platform.db, m.accountId, 50_000);
});
afterAll(() => server?.close());

const item = (cents: number, key: string | null) => {
  const req = { amountCents: cents, pixKey: '52998224725', pixKeyType: 'CPF' as const };
  return { req, key, hash: requestHash(req) };
};

it('decides each cashout of a shared transaction on its own, in order', async () => {
  const { db, queue } = server.runtime.platform;
  const outcomes = await db.tx((tx) =>
    createBatch(tx, queue, m.accountId, [
      item(20_000, 'a'),
      item(5_000, 'b'), // below minimum: stored as the key's outcome
      item(20_000, 'a'), // same key in the same transaction: the first is in flight
      item(20_000, null),
      item(20_000, 'c'), // only 10_000 left: insufficient
      item(10_000, null),
    ]),
  );
  const codes = outcomes.map((o) => (o instanceof AppError ? o.code : 'CREATED'));
  expect(codes).toEqual([
    'CREATED',
    'MINIMUM_VALUE',
    'IDEMPOTENCY_KEY_IN_USE',
    'CREATED',
    'INSUFFICIENT_BALANCE',
    'CREATED',
  ]);
  expect(await getBalance(db, m.accountId)).toEqual({ available: 0, blocked: 50_000, total: 50_000 });
  expect((await verifyLedger(db)).ok).toBe(true);
  const jobs = await db.query<{ data: { withdrawalIds: number[] } }>(
    `SELECT data FROM pgboss.job WHERE name = 'payouts.submit'`,
  );
  const created = outcomes.flatMap((o) => (o instanceof AppError ? [] : [o.withdrawal.id]));
  expect(jobs.map((j) => j.data.withdrawalIds)).toEqual([created]); // one payout job per shared transaction

  // replays come back as stored, in a later shared transaction
  const again = await db.tx((tx) =>
    createBatch(tx, queue, m.accountId, [
      item(20_000, 'a'),
      item(5_000, 'b'),
      item(20_000, 'c'),
      item(30_000, 'a'),
    ]),
  );
  expect(again[0]).toMatchObject({ replayed: true });
  expect((again[0] as { withdrawal: { id: number } }).withdrawal.id).toBe(
    (outcomes[0] as { withdrawal: { id: number } }).withdrawal.id,
  );
  expect(again.slice(1).map((o) => (o as AppError).code)).toEqual([
    'MINIMUM_VALUE',
    'INSUFFICIENT_BALANCE',
    'IDEMPOTENCY_KEY_REUSED',
  ]);
});
