import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDb } from '../../../src/platform/db/db.js';
import { migrate } from '../../../src/platform/db/migrate.js';
import { type EmbeddedServer, startEmbedded } from '../../support/embedded.js';
import { admin, urlFor } from '../../support/pg.js';

let embedded: EmbeddedServer;
let embeddedDb: Db;
let postgres: Db;
const blank = `gw_mig_${process.pid}_${Date.now()}`;

beforeAll(async () => {
  embedded = await startEmbedded();
  embeddedDb = openDb({ databaseUrl: embedded.url });
  await admin((c) => c.query(`CREATE DATABASE ${blank}`));
  postgres = openDb({ databaseUrl: urlFor(blank) });
});
afterAll(async () => {
  await embeddedDb?.close();
  await embedded?.stop();
  await postgres?.close();
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${blank} WITH (FORCE)`));
});

/** The public schema as data: columns, constraints and indexes, in a stable order. */
async function schemaOf(db: Db) {
  const columns = await db.query(
    `SELECT table_name, column_name, data_type, is_nullable, column_default, ordinal_position
       FROM information_schema.columns WHERE table_schema = 'public'
      ORDER BY table_name, ordinal_position`,
  );
  // PostgreSQL 18 (embedded) also lists NOT NULL as constraints (contype n); columns carry those already.
  const constraints = await db.query(
    `SELECT conrelid::regclass::text AS table_name, conname, contype, pg_get_constraintdef(oid) AS def
       FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND contype <> 'n'
      ORDER BY 1, 2`,
  );
  const indexes = await db.query<{ tablename: string; indexname: string; indexdef: string }>(
    `SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1, 2`,
  );
  // PostgreSQL 15 prints an index on an expression with one more pair of parentheses than 18 does
  const printed = (def: string) => def.replace(/USING (\w+) \(\(\((.*)\)\)\)$/, 'USING $1 (($2))');
  return { columns, constraints, indexes: indexes.map((i) => ({ ...i, indexdef: printed(i.indexdef) })) };
}

describe('migrations', () => {
  it('apply from scratch on the embedded PostgreSQL 18 and the PostgreSQL server, then are a no-op', async () => {
    const first = await migrate(embeddedDb);
    const second = await migrate(postgres);
    expect(first.applied.length).toBeGreaterThan(0);
    expect(second.applied).toEqual(first.applied);
    expect(first.applied).toEqual([...first.applied].sort());
    expect((await migrate(embeddedDb)).applied).toEqual([]);
    expect((await migrate(postgres)).applied).toEqual([]);
  });

  it('produce the same schema on both', async () => {
    const onEmbedded = await schemaOf(embeddedDb);
    const pg = await schemaOf(postgres);
    expect(onEmbedded.columns.length).toBeGreaterThan(20);
    expect(onEmbedded.columns).toEqual(pg.columns);
    expect(onEmbedded.constraints).toEqual(pg.constraints);
    expect(onEmbedded.indexes).toEqual(pg.indexes);
  });

  it("compress a sale's JSON columns by lz4 where the server has it, and keep the default where it has not", async () => {
    const compression = async (db: Db) => {
      const lz4 = await db
        .query("SELECT set_config('default_toast_compression', 'lz4', true)")
        .then(() => true)
        .catch(() => false);
      const columns = await db.query<{ attname: string; attcompression: string }>(
        `SELECT attname, attcompression::text FROM pg_attribute
          WHERE attrelid = 'sales'::regclass AND attname IN ('boleto', 'public_json') ORDER BY attname`,
      );
      return { lz4, columns: columns.map((c) => `${c.attname}:${c.attcompression}`) };
    };
    // the embedded 18 is built without lz4; Debian's PostgreSQL 15, the tests' server here, with it
    const server = await compression(postgres);
    expect(server.columns).toEqual(server.lz4 ? ['boleto:l', 'public_json:l'] : ['boleto:', 'public_json:']);
    expect(await compression(embeddedDb)).toEqual({ lz4: false, columns: ['boleto:', 'public_json:'] });
  });

  it('run concurrently without applying anything twice', async () => {
    const other = `${blank}_c`;
    await admin((c) => c.query(`CREATE DATABASE ${other}`));
    const dbs = [1, 2, 3].map(() => openDb({ databaseUrl: urlFor(other) }));
    try {
      const results = await Promise.all(dbs.map((db) => migrate(db)));
      const applied = results.flatMap((r) => r.applied);
      expect(applied).toEqual([...new Set(applied)]);
      expect(results.filter((r) => r.applied.length > 0)).toHaveLength(1);
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
      await admin((c) => c.query(`DROP DATABASE IF EXISTS ${other} WITH (FORCE)`));
    }
  });
});
