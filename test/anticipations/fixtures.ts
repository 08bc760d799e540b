import { expect } from 'vitest';
import { verifyLedger } from '../../src/ledger/verify.js';
import type { Db } from '../../src/platform/db/db.js';
import { cardSale, planBody, planFor } from '../fees/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import type { TestOperator } from '../support/operators.js';
import type { TestServer } from '../support/server.js';

/** The São Paulo date `n` days from today (UTC−3). */
export const plusDays = (n: number) => {
  const today = new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10);
  return new Date(Date.parse(`${today}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
};

/**
 * A merchant on a plan whose card fee is zero (an installment is then amount / installments) and whose
 * anticipation costs 3 % a month: 10 cents per day per 10000.
 */
export async function anticipatingMerchant(server: TestServer, finance: TestOperator): Promise<TestMerchant> {
  const m = await createMerchant(server);
  await planFor(
    server,
    finance,
    m,
    planBody(`Antecipa ${Math.random().toString(36).slice(2, 8)}`, {
      creditPercent: { '1': '0', '2-6': '0', '7-12': '0' },
      anticipationMonthlyPercent: '3',
    }),
  );
  return m;
}

export { cardSale };

export async function buckets(db: Db, accountId: number): Promise<Record<string, number>> {
  const rows = await db.query<{ bucket: string; balance: string }>(
    'SELECT bucket, balance FROM ledger_accounts WHERE account_id = $1',
    [accountId],
  );
  return Object.fromEntries(rows.map((r) => [r.bucket, Number(r.balance)]));
}

/** The company's revenue: what its fee account (`system:fees`) holds. */
export async function revenue(db: Db): Promise<number> {
  const [row] = await db.query<{ total: string }>(
    `SELECT COALESCE(sum(p.amount), 0) AS total FROM postings p JOIN ledger_accounts la ON la.id = p.ledger_account_id
      WHERE la.code = 'system:fees'`,
  );
  return Number(row!.total);
}

export async function expectLedgerOk(db: Db): Promise<void> {
  const report = await verifyLedger(db);
  expect(report.problems).toEqual([]);
}
