import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDb } from '../../src/platform/db.js';
import { type EmbeddedServer, startEmbedded } from '../support/embedded.js';
import { freshDatabase } from '../support/pg.js';

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
