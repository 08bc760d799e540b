import type { Db } from '../../src/platform/db/db.js';

class Rollback extends Error {}

/**
 * The tables a statement's plan reads whose names match `tables` (EXPLAIN ANALYZE, run as a generic plan as the
 * gateway's prepared statements run, then rolled back): a partition pruned at plan or run time is either not
 * in the plan or never ran, so it is not listed.
 */
export async function tablesRead(db: Db, tables: RegExp, sql: string, params: unknown[]): Promise<string[]> {
  const found = new Set<string>();
  await db
    .tx(async (tx) => {
      await tx.query("SET LOCAL plan_cache_mode = 'force_generic_plan'");
      const [row] = await tx.query<{ 'QUERY PLAN': unknown }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`,
        params,
      );
      const walk = (node: unknown): void => {
        if (Array.isArray(node)) node.forEach(walk);
        else if (node && typeof node === 'object') {
          const n = node as Record<string, unknown>;
          const name = n['Relation Name'];
          const ran = typeof n['Actual Loops'] === 'number' && n['Actual Loops'] > 0;
          if (ran && typeof name === 'string' && tables.test(name)) found.add(name);
          Object.values(n).forEach(walk);
        }
      };
      walk(row!['QUERY PLAN']);
      throw new Rollback();
    })
    .catch((err: unknown) => {
      if (!(err instanceof Rollback)) throw err;
    });
  return [...found].sort();
}
