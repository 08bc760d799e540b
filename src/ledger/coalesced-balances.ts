import { coalescedReader } from '../platform/concurrency/coalesced-reads.js';
import type { Queryable } from '../platform/db/db.js';
import { type Balance, type Bucket, getBalance } from './ledger.js';

/**
 * Merchants' balances as getBalance reads them, the reads that arrive together answered by one query
 * (coalescedReader), with the receivable bucket. A merchant without both ledger rows is read again alone by getBalance, which creates them.
 */
export function balanceReads(db: Queryable): (accountId: number) => Promise<PublicBalance> {
  const read = coalescedReader<number, PublicBalance>(async (ids) => {
    const rows = await db.query<{ account_id: number; bucket: Bucket; balance: number }>(
      'SELECT account_id, bucket, balance FROM ledger_accounts WHERE account_id = ANY($1::bigint[])',
      [ids],
      { prepare: 'ledger_balances' },
    );
    const parts = new Map<number, Partial<Record<Bucket, number>>>();
    for (const r of rows) {
      const p = parts.get(r.account_id) ?? {};
      p[r.bucket] = r.balance;
      parts.set(r.account_id, p);
    }
    const balances = new Map<number, PublicBalance>();
    for (const [id, { available, blocked, receivable }] of parts) {
      if (available === undefined || blocked === undefined) continue;
      balances.set(id, { available, blocked, total: available + blocked, receivable: receivable ?? 0 });
    }
    return balances;
  });
  return async (accountId) =>
    (await read(accountId)) ?? { ...(await getBalance(db, accountId)), receivable: 0 };
}

/** The API's balance: the two buckets and their total, and card money still to settle (not in the total). */
export interface PublicBalance extends Balance {
  receivable: number;
}
