import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, type GatheredWrite, openDb } from '../../../src/platform/db/db.js';
import { TxLane } from '../../../src/platform/db/tx-lane.js';
import { freshDatabase } from '../../support/pg.js';

let db: Db;
let drop: () => Promise<void>;

beforeAll(async () => {
  const fresh = await freshDatabase();
  drop = fresh.drop;
  db = openDb({ databaseUrl: fresh.url });
  await db.query('CREATE TABLE lane_rows (n int PRIMARY KEY, xid bigint NOT NULL)');
});
afterAll(async () => {
  await db?.close();
  await drop?.();
});

describe('TxLane', () => {
  it('works arriving together share transactions; a refusal is its own, the others commit; each sees the ones before it', async () => {
    const lane = new TxLane(db, { maxBatch: 16, parallel: 2 });
    const refused = new Set([7, 33, 34, 80]);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 100 }, (_, n) =>
        lane.run(async (tx) => {
          const [row] = await tx.query<{ xid: string }>(
            'INSERT INTO lane_rows (n, xid) VALUES ($1, txid_current()) RETURNING xid::text',
            [n],
          );
          if (refused.has(n)) throw new Error(`refused ${n}`);
          // rows written earlier in the same run are seen, as after their commits
          const [seen] = await tx.query<{ c: number }>(
            'SELECT count(*)::int AS c FROM lane_rows WHERE n < $1',
            [n],
          );
          return { n, xid: row!.xid, seenBefore: seen!.c };
        }),
      ),
    );
    const rejected = outcomes.flatMap((o, n) => (o.status === 'rejected' ? [n] : []));
    expect(rejected).toEqual([...refused]);
    for (const n of refused) {
      const o = outcomes[n] as PromiseRejectedResult;
      expect((o.reason as Error).message).toBe(`refused ${n}`);
    }
    const stored = await db.query<{ n: number; xid: string }>(
      'SELECT n, xid::text FROM lane_rows ORDER BY n',
    );
    expect(stored.map((r) => r.n)).toEqual(
      Array.from({ length: 100 }, (_, n) => n).filter((n) => !refused.has(n)),
    );
    // fewer transactions than works: they were shared
    const transactions = new Set(stored.map((r) => r.xid)).size;
    expect(transactions).toBeLessThan(stored.length);
    // each answer is its own row's, and saw the rows written before it in its own transaction
    for (const o of outcomes) {
      if (o.status === 'fulfilled') {
        const value = o.value as { n: number; xid: string; seenBefore: number };
        expect(stored.find((r) => r.n === value.n)?.xid).toBe(value.xid);
        const sameRunBefore = stored.filter((r) => r.xid === value.xid && r.n < value.n).length;
        expect(value.seenBefore).toBeGreaterThanOrEqual(sameRunBefore);
      }
    }
  });

  it("rows the works gather are written by one statement a run, before its COMMIT, and only the committed works' ones", async () => {
    await db.query('CREATE TABLE gathered_rows (n int PRIMARY KEY, xid bigint NOT NULL)');
    const statements: number[] = [];
    const kind: GatheredWrite<number> = {
      write: async (tx, items) => {
        statements.push(items.length);
        await tx.query(
          'INSERT INTO gathered_rows (n, xid) SELECT n, txid_current() FROM unnest($1::int[]) AS n',
          [items],
        );
      },
    };
    const lane = new TxLane(db, { maxBatch: 16, parallel: 2 });
    const refused = new Set([5, 41]);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 60 }, (_, n) =>
        lane.run(async (tx) => {
          const [row] = await tx.query<{ xid: string }>(
            'INSERT INTO lane_rows (n, xid) VALUES ($1 + 1000, txid_current()) RETURNING xid::text',
            [n],
          );
          tx.gather!(kind, n);
          if (refused.has(n)) throw new Error(`refused ${n}`);
          return row!.xid;
        }),
      ),
    );
    const gathered = await db.query<{ n: number; xid: string }>(
      'SELECT n, xid::text FROM gathered_rows ORDER BY n',
    );
    expect(gathered.map((r) => r.n)).toEqual(
      Array.from({ length: 60 }, (_, n) => n).filter((n) => !refused.has(n)),
    );
    // each in its work's own transaction
    for (const [n, o] of outcomes.entries()) {
      if (o.status === 'fulfilled') expect(gathered.find((r) => r.n === n)?.xid).toBe(o.value);
      else expect(refused.has(n)).toBe(true);
    }
    // fewer statements than rows: a run's works shared one
    expect(statements.length).toBeLessThan(60);
    expect(Math.max(...statements)).toBeGreaterThan(1);
    // outside a lane, no gathering: the caller writes at once
    expect(await db.tx(async (tx) => tx.gather)).toBeUndefined();
  });

  it('at rest a work runs at once, alone', async () => {
    const lane = new TxLane(db, { maxBatch: 16, parallel: 2 });
    const a = await lane.run((tx) => tx.query<{ x: string }>('SELECT txid_current()::text AS x'));
    const b = await lane.run((tx) => tx.query<{ x: string }>('SELECT txid_current()::text AS x'));
    expect(a[0]!.x).not.toBe(b[0]!.x);
  });
});
