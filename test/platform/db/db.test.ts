import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDb } from '../../../src/platform/db/db.js';
import { type EmbeddedServer, startEmbedded } from '../../support/embedded.js';
import { freshDatabase } from '../../support/pg.js';

let embedded: EmbeddedServer;
let onEmbedded: Db;
let postgres: Db;
let drop: () => Promise<void>;

beforeAll(async () => {
  embedded = await startEmbedded();
  onEmbedded = openDb({ databaseUrl: embedded.url });
  const fresh = await freshDatabase();
  drop = fresh.drop;
  postgres = openDb({ databaseUrl: fresh.url });
});
afterAll(async () => {
  await onEmbedded?.close();
  await embedded?.stop();
  await postgres?.close();
  await drop?.();
});

describe.each([
  ['the PostgreSQL server', () => postgres],
  ['the embedded PostgreSQL', () => onEmbedded],
])('withSettings on %s', (_, db) => {
  it('runs its statements under the settings, leaves every other statement alone, and autocommits', async () => {
    const queue = db().withSettings({ enable_seqscan: 'off', enable_hashjoin: 'off' }, 2);
    const setting = `SELECT current_setting('enable_seqscan') AS seq, current_setting('enable_hashjoin') AS hash`;
    const runs = await Promise.all([1, 2, 3].map(() => queue.query<{ seq: string; hash: string }>(setting)));
    for (const [row] of runs) expect(row).toEqual({ seq: 'off', hash: 'off' });
    expect(await db().query(setting)).toEqual([{ seq: 'on', hash: 'on' }]);

    await db().query('CREATE TABLE IF NOT EXISTS settings_probe (n int)');
    await queue.query('INSERT INTO settings_probe (n) VALUES ($1)', [7], {
      prepare: 'settings_probe_insert',
    });
    await queue.query('INSERT INTO settings_probe (n) VALUES ($1)', [8], {
      prepare: 'settings_probe_insert',
    });
    // committed: another connection sees the rows
    expect(await db().query('SELECT n FROM settings_probe ORDER BY n')).toEqual([{ n: 7 }, { n: 8 }]);
  });
});

describe.each([
  ['the PostgreSQL server', () => postgres],
  ['the embedded PostgreSQL', () => onEmbedded],
])('txEndingWith on %s', (_, db) => {
  it('sends its last statements with the COMMIT: both apply, and a failing one commits nothing', async () => {
    await db().query('CREATE TABLE IF NOT EXISTS ending_probe (n int PRIMARY KEY, v int NOT NULL)');
    await db().query('INSERT INTO ending_probe VALUES (1, 0) ON CONFLICT (n) DO UPDATE SET v = 0');
    const answer = await db().txEndingWith(async (tx) => {
      await tx.query('INSERT INTO ending_probe VALUES ($1, 1)', [2]);
      return ['done', 'UPDATE ending_probe SET v = v + 5 WHERE n = 1'];
    });
    expect(answer).toBe('done');
    expect(await db().query('SELECT n, v FROM ending_probe ORDER BY n')).toEqual([
      { n: 1, v: 5 },
      { n: 2, v: 1 },
    ]);

    await expect(
      db().txEndingWith(async (tx) => {
        await tx.query('INSERT INTO ending_probe VALUES ($1, 1)', [3]);
        return [null, "SELECT ('no such row')::int"];
      }),
    ).rejects.toThrow(/invalid input syntax/);
    expect(await db().query('SELECT n FROM ending_probe ORDER BY n')).toEqual([{ n: 1 }, { n: 2 }]);
    // the connection went back clean: the next transaction works
    await db().tx((tx) => tx.query('DELETE FROM ending_probe WHERE n = 2'));
    expect(await db().query('SELECT n FROM ending_probe')).toEqual([{ n: 1 }]);
  });

  it('plans its prepared statements generically only when asked, and only inside it', async () => {
    const mode = "SELECT current_setting('plan_cache_mode') AS m";
    const inside = await db().txEndingWith(async (tx) => [await tx.query<{ m: string }>(mode), ''], {
      generic: true,
    });
    expect(inside).toEqual([{ m: 'force_generic_plan' }]);
    expect(await db().tx((tx) => tx.query(mode))).toEqual([{ m: 'auto' }]);
  });
});

describe('transactions and what runs after their commit', () => {
  it('runs afterCommit callbacks once committed, never for a rollback; a body that swallowed an error fails', async () => {
    const db = postgres;
    await db.query('CREATE TABLE IF NOT EXISTS commit_probe (n int)');
    const ran: string[] = [];
    await db.tx(async (tx) => {
      await tx.query('INSERT INTO commit_probe (n) VALUES (1)');
      tx.afterCommit?.(() => ran.push('committed'));
      expect(ran).toEqual([]); // not before the COMMIT
    });
    expect(ran).toEqual(['committed']);

    await expect(
      db.tx(async (tx) => {
        tx.afterCommit?.(() => ran.push('thrown'));
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    // a statement failed, the body caught it and returned: PostgreSQL answers that COMMIT with ROLLBACK
    await expect(
      db.tx(async (tx) => {
        tx.afterCommit?.(() => ran.push('swallowed'));
        await tx.query('INSERT INTO commit_probe (n) VALUES (2)');
        await tx.query('SELECT 1/0').catch(() => undefined);
      }),
    ).rejects.toThrow(/rolled back/);
    expect(ran).toEqual(['committed']);
    expect(await db.query('SELECT n FROM commit_probe ORDER BY n')).toEqual([{ n: 1 }]);
    // a callback that throws does not turn the committed transaction into an error
    await db.tx(async (tx) => {
      tx.afterCommit?.(() => {
        throw new Error('a counter failed');
      });
    });
  });
});

describe('a transaction that ends early', () => {
  it('rolls back only what it began: no ROLLBACK outside a transaction, no WARNING in the server log', async () => {
    const db = onEmbedded;
    const [{ dir }] = await db.query<{ dir: string }>("SELECT current_setting('data_directory') AS dir");
    const log = path.join(path.dirname(dir), 'postgres.log');
    const warnings = () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l.includes('there is no transaction in progress')).length;
    const before = warnings();
    await db.query('CREATE TABLE IF NOT EXISTS early_probe (n int)');
    // refused before its first statement (an unknown id, a bad input): nothing was begun
    await expect(
      db.tx(async () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    // its first statement failed: the BEGIN was sent, the ROLLBACK is due
    await expect(
      db.tx(async (tx) => {
        await tx.query('SELECT $1::uuid', ['abc']);
      }),
    ).rejects.toThrow(/uuid/);
    // a statement failed and the body went on: the server rolled back at COMMIT, nothing more is sent
    await expect(
      db.tx(async (tx) => {
        await tx.query('INSERT INTO early_probe (n) VALUES (1)');
        await tx.query('SELECT 1/0').catch(() => undefined);
      }),
    ).rejects.toThrow(/rolled back/);
    // the connection is as good as new
    expect(await db.tx((tx) => tx.query('SELECT count(*)::int AS n FROM early_probe'))).toEqual([{ n: 0 }]);
    await db.query('SELECT pg_sleep(0.2)'); // the server's log is written by its own process
    expect(warnings()).toBe(before);
  });
});
