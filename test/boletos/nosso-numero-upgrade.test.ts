/**
 * Nossos números from one sequence (migration 273): a database that gave numbers from the per-beneficiary counter
 * rows before goes on after the highest of them, and numbers drawn at once by many connections never repeat.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeNossoNumeros } from '../../src/boletos/data.js';
import { type Db, openDb } from '../../src/platform/db/db.js';
import { migrate } from '../../src/platform/db/migrate.js';
import { admin, urlFor } from '../support/pg.js';

const name = `gw_nnup_${process.pid}_${Date.now()}`;
let db: Db;

beforeAll(async () => {
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  db = openDb({ databaseUrl: urlFor(name) });
});
afterAll(async () => {
  await db?.close();
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
});

describe('nossos números after the upgrade to one sequence', () => {
  it('start after every number the counters gave, and never repeat across connections', async () => {
    await migrate(db, { through: '272_sale_json_lz4' });
    await db.query(
      "INSERT INTO boleto_numbers (beneficiary, last) VALUES ('237/1234/0012345/09', 41), ('341/0001/0000001/00', 7)",
    );
    await migrate(db);
    const [table] = await db.query<{ exists: boolean }>(
      "SELECT to_regclass('boleto_numbers') IS NOT NULL AS exists",
    );
    expect(table!.exists).toBe(false);

    const batches = await Promise.all(
      Array.from({ length: 20 }, (_, i) => takeNossoNumeros(db, 1 + (i % 4))),
    );
    const numbers = batches.flat();
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(Math.min(...numbers)).toBe(42);
    for (const [i, batch] of batches.entries()) expect(batch).toHaveLength(1 + (i % 4));
  });
});
