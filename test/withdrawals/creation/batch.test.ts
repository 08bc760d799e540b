import { afterAll, beforeAll, expect, it } from 'vitest';
import { getBalance } from '../../../src/ledger/ledger.js';
import { verifyLedger } from '../../../src/ledger/verify.js';
import { AppError } from '../../../src/platform/errors/app-error.js';
import { runBatch } from '../../../src/withdrawals/creation/creator.js';
import { requestHash } from '../../../src/withdrawals/request.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { fundMerchant } from '../../support/ledger.js';
import { startServer, type TestServer } from '../../support/server.js';
import { waitUntil } from '../../support/wait.js';

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
  const outcomes = await runBatch(db, queue, m.accountId, [
    item(20_000, 'a'),
    item(5_000, 'b'), // below minimum: stored as the key's outcome
    item(20_000, 'a'), // same key in the same transaction: the first is in flight
    item(20_000, null),
    item(20_000, 'c'), // only 10_000 left: insufficient
    item(10_000, null),
  ]);
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
  const again = await runBatch(db, queue, m.accountId, [
    item(20_000, 'a'),
    item(5_000, 'b'),
    item(20_000, 'c'),
    item(30_000, 'a'),
  ]);
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

it('a batch whose optimistic balance read was overtaken commits nothing, then decides again with the row locked', async () => {
  const { db, queue } = server.runtime.platform;
  const other = await createMerchant(server, 'Overtaken');
  await fundMerchant(db, other.accountId, 50_000);
  // hold the balance row while both batches read it optimistically and reach their guarded debit
  let release: () => void = () => undefined;
  const held = new Promise<void>((r) => {
    release = r;
  });
  let locked = false;
  const holder = db.tx(async (tx) => {
    await tx.query(
      `SELECT 1 FROM ledger_accounts WHERE account_id = $1 AND bucket = 'available' FOR UPDATE`,
      [other.accountId],
    );
    locked = true;
    await held;
  });
  await waitUntil(() => locked || undefined);
  const first = runBatch(db, queue, other.accountId, [item(30_000, null)]);
  const second = runBatch(db, queue, other.accountId, [item(30_000, null)]);
  // both have read the balance optimistically and wait on the row for their guarded debit
  await waitUntil(async () => {
    const [r] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%ledger_accounts%'`,
    );
    return r!.n >= 2 || undefined;
  });
  release();
  await holder;
  const outcomes = [...(await first), ...(await second)];
  const codes = outcomes.map((o) => (o instanceof AppError ? o.code : 'CREATED')).sort();
  expect(codes).toEqual(['CREATED', 'INSUFFICIENT_BALANCE']);
  const rows = await db.query('SELECT id FROM withdrawals WHERE account_id = $1', [other.accountId]);
  expect(rows).toHaveLength(1); // the refused batch's optimistic insert did not commit
  expect(await getBalance(db, other.accountId)).toEqual({
    available: 20_000,
    blocked: 30_000,
    total: 50_000,
  });
  expect((await verifyLedger(db)).ok).toBe(true);
});
