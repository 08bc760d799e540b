import { postEntry } from '../../src/ledger/ledger.js';
import type { Db } from '../../src/platform/db.js';

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
