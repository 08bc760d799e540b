import type { Queryable } from './db.js';

let next = 0;

/**
 * Runs `fn` inside a savepoint of the caller's transaction: when it throws, what it wrote is rolled back and
 * the transaction goes on (the error is rethrown); its after-commit work is kept only if it succeeded. For
 * work grouped into one transaction whose items must fail alone. PostgreSQL keeps a transaction's first 64
 * subtransactions in shared memory; past that every snapshot in the server reads them from disk, so keep a
 * group's savepoints under 64.
 */
export async function inSavepoint<T>(tx: Queryable, fn: (q: Queryable) => Promise<T>): Promise<T> {
  const name = `sp_${++next}`;
  const committed: (() => void)[] = [];
  const q: Queryable = {
    query: (text, params, options) => tx.query(text, params, options),
    afterCommit: (f) => committed.push(f),
  };
  await tx.query(`SAVEPOINT ${name}`);
  let result: T;
  try {
    result = await fn(q);
  } catch (err) {
    await tx.query(`ROLLBACK TO SAVEPOINT ${name}`);
    throw err;
  }
  await tx.query(`RELEASE SAVEPOINT ${name}`);
  for (const f of committed) {
    if (tx.afterCommit) tx.afterCommit(f);
    else f();
  }
  return result;
}
