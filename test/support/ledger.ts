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

/** Polls `check` until it returns a value other than undefined/false (no timing thresholds in assertions). */
export async function waitFor<T>(check: () => Promise<T | undefined | false>, timeoutMs = 20000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
