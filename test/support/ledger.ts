import { postEntry } from '../../src/ledger/ledger.js';
import type { Db } from '../../src/platform/db/db.js';

/** Credits `cents` to a merchant's available balance the way a paid sale does: a balanced ledger entry. */
export async function fundMerchant(db: Db, accountId: number, cents: number): Promise<void> {
  await db.tx((tx) =>
    postEntry(tx, {
      kind: 'test.fund',
      refType: 'test',
      refId: accountId,
      postings: [
        { target: { system: 'processor' }, amount: -cents },
        { target: { accountId, bucket: 'available' }, amount: cents },
      ],
    }),
  );
}

/**
 * Runs a statement the ledger's append-only triggers would refuse (migration 126), to corrupt or repair it on
 * purpose: in a transaction of its own, with triggers off for that transaction (the tests connect as a
 * superuser). Returns its rows.
 */
export function bypassLedgerGuards<T>(db: Db, sql: string, params: unknown[] = []): Promise<T[]> {
  return db.tx(async (tx) => {
    await tx.query('SET LOCAL session_replication_role = replica');
    return tx.query<T>(sql, params);
  });
}
